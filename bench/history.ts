// BENCHMARKS.md: each run's entry is appended at the end of its "History" section; other sections stay as written.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const HISTORY = '## History';

const PREAMBLE = `# Benchmarks

\`npm run bench\` measures import, lookups, the static-response ceiling, json-server and memory on the machine
it runs on; \`npm run bench:scale\` measures the full-scale import and lookup rate. Both append their results
under **History**, newest last, with the machine, date, Node version and exact command (options:
\`npm run bench -- --help\`). The scripts never touch the other sections.

${HISTORY}
`;

/** Appends `entry` (markdown starting with a ### heading) to the History section of `file`, creating either. */
export function appendToHistory(file: string, entry: string): void {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : PREAMBLE;
  const lines = text.split('\n');
  let start = lines.findIndex((line) => line.trim() === HISTORY);
  if (start === -1) {
    if (lines.at(-1) === '') lines.pop();
    lines.push('', HISTORY);
    start = lines.length - 1;
  }
  const next = lines.findIndex((line, i) => i > start && /^## /.test(line));
  const end = next === -1 ? lines.length : next;
  const before = lines.slice(0, end);
  while (before.length > start + 1 && before.at(-1)!.trim() === '') before.pop();
  const after = lines.slice(end);
  const block = ['', entry.trimEnd(), ''];
  const rest = after.length > 0 ? ['', ...after] : [];
  writeFileSync(file, `${[...before, ...block, ...rest].join('\n').replace(/\n*$/, '')}\n`);
}
