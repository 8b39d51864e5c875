// The examples of a documentation page: its fenced blocks, what the HTML comments above them say, and
// which blocks are the output of which example (docs/development.md, "Tests", describes the comments).

/** What a page's reader is shown an example prints: a stream of it, or a file it writes. */
export type Expectation =
  | { kind: 'stdout' | 'stderr'; text: string; line: number }
  | { kind: 'file'; path: string; text: string; line: number };

export interface Example {
  /** The page's path from the repository's root (`README.md`, `docs/lists.md`). */
  page: string;
  /** The line of its opening fence, counted from 1. */
  line: number;
  lang: string;
  code: string;
  /** The exit status it is printed to end with. */
  exits: number;
  /** A server: started, awaited until its output shows, stopped when the page is done. */
  background: boolean;
  /** Why the test cannot run it, when the page says so. */
  notRun?: string;
  expect: Expectation[];
}

export interface Page {
  examples: Example[];
  /** Blocks the test cannot make sense of: each a sentence naming its line. */
  problems: string[];
}

/** The languages the test runs. */
export const RUNNABLE = new Set(['sh', 'ts']);
/** Languages of illustrations (a layout, a diagram, a format) when no comment says otherwise. */
const ILLUSTRATION = new Set(['', 'text', 'json']);

type Marker =
  | { kind: 'stdout' | 'stderr' }
  | { kind: 'file'; path: string }
  | { kind: 'exits'; status: number }
  | { kind: 'background' }
  | { kind: 'not-run'; why: string };

/** One comment's marker, or a problem when the comment is not one the test knows. */
function marker(comment: string): Marker | string {
  const text = comment.trim();
  if (text === 'output') return { kind: 'stdout' };
  if (text === 'stderr') return { kind: 'stderr' };
  const [, word, rest] = /^([a-z ]+?)(?::\s*(.*))?$/s.exec(text) ?? [];
  if (word === 'file' && rest) return { kind: 'file', path: rest.trim() };
  if (word === 'background' && rest) return { kind: 'background' };
  if (word === 'not run' && rest) return { kind: 'not-run', why: rest.trim() };
  const exits = /^exits (\d+)(?::.*)?$/s.exec(text);
  if (exits) return { kind: 'exits', status: Number(exits[1]) };
  const known = 'output, stderr, file: PATH, exits N, background: WHY, not run: WHY';
  return `an unknown comment <!-- ${text} -->: one of ${known}`;
}

interface Fenced {
  line: number;
  lang: string;
  code: string;
  markers: Marker[];
}

/** The fenced blocks of a page with the comments on the lines just above each, indented or not. */
function fencedBlocks(markdown: string, problems: string[]): Fenced[] {
  const lines = markdown.split('\n');
  const blocks: Fenced[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,})([\w-]*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^ {0,${indent.length}}${fence}\\s*$`).test(lines[j]!)) {
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!.trimStart());
      j++;
    }
    const markers: Marker[] = [];
    for (let k = i - 1; k >= 0; k--) {
      const comment = /^\s*<!--(.*)-->\s*$/.exec(lines[k]!);
      if (!comment) break;
      const found = marker(comment[1]!);
      if (typeof found === 'string') problems.push(`line ${k + 1}: ${found}`);
      else markers.unshift(found);
    }
    blocks.push({ line: i + 1, lang, code: body.join('\n'), markers });
    i = j;
  }
  return blocks;
}

const OUTPUTS = new Set(['stdout', 'stderr', 'file']);

/** The page's examples, each with the outputs printed after it, and what the test cannot read. */
export function pageExamples(page: string, markdown: string): Page {
  const problems: string[] = [];
  const examples: Example[] = [];
  for (const block of fencedBlocks(markdown, problems)) {
    const output = block.markers.find((m) => OUTPUTS.has(m.kind));
    if (output) {
      const example = examples.at(-1);
      if (!example) {
        problems.push(`line ${block.line}: an output with no example above it`);
        continue;
      }
      example.expect.push(
        output.kind === 'file'
          ? { kind: 'file', path: output.path, text: block.code, line: block.line }
          : { kind: output.kind as 'stdout' | 'stderr', text: block.code, line: block.line },
      );
      continue;
    }
    const notRun = block.markers.find((m) => m.kind === 'not-run');
    if (!RUNNABLE.has(block.lang) && !notRun) {
      if (!ILLUSTRATION.has(block.lang) || block.markers.length > 0)
        problems.push(
          `line ${block.line}: the test runs no \`\`\`${block.lang} block: say why with <!-- not run: … -->`,
        );
      continue;
    }
    const exits = block.markers.find((m) => m.kind === 'exits');
    const background = block.markers.some((m) => m.kind === 'background');
    if (background && block.lang !== 'sh')
      problems.push(`line ${block.line}: only a sh block runs in the background`);
    examples.push({
      page,
      line: block.line,
      lang: block.lang,
      code: block.code,
      exits: exits?.kind === 'exits' ? exits.status : 0,
      background,
      ...(notRun?.kind === 'not-run' ? { notRun: notRun.why } : {}),
      expect: [],
    });
  }
  return { examples, problems };
}
