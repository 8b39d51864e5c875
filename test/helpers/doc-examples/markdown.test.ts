// Reading a page's examples: which blocks run, what the comments above them say, and whose output a block is.
import { describe, expect, it } from 'vitest';
import { pageExamples } from './markdown.js';
import { normalise, PortMap, promisedLines, requestedPorts } from './outputs.js';

const fence = '```';
const page = (...lines: string[]) => pageExamples('docs/x.md', lines.join('\n'));

describe('pageExamples', () => {
  it('runs sh and ts blocks and treats text and json blocks without a comment as illustrations', () => {
    const { examples, problems } = page(
      `${fence}sh`,
      'curl localhost:8080/healthz',
      fence,
      '',
      `${fence}text`,
      'src/ layout',
      fence,
      `${fence}ts`,
      "console.log('hi'); // hi",
      fence,
    );
    expect(problems).toEqual([]);
    expect(examples.map((e) => [e.line, e.lang, e.code, e.exits])).toEqual([
      [1, 'sh', 'curl localhost:8080/healthz', 0],
      [8, 'ts', "console.log('hi'); // hi", 0],
    ]);
  });

  it('gives an example the stdout, stderr and files shown after it, indented or not', () => {
    const { examples } = page(
      `  ${fence}sh`,
      '  npx enrich match people leads.csv > out.csv',
      `  ${fence}`,
      '',
      '  <!-- stderr -->',
      `  ${fence}text`,
      '  4 rows: 2 matched',
      `  ${fence}`,
      '<!-- file: out.csv -->',
      `${fence}text`,
      'a,b',
      fence,
    );
    expect(examples).toHaveLength(1);
    expect(examples[0]!.code).toBe('npx enrich match people leads.csv > out.csv');
    expect(examples[0]!.expect).toEqual([
      { kind: 'stderr', text: '4 rows: 2 matched', line: 6 },
      { kind: 'file', path: 'out.csv', text: 'a,b', line: 10 },
    ]);
  });

  it('reads an exit status, a background server and a reason not to run', () => {
    const { examples } = page(
      '<!-- exits 22: a 404 -->',
      `${fence}sh`,
      'curl localhost:8080/nothing',
      fence,
      '<!-- background: a server -->',
      `${fence}sh`,
      'npx enrich serve --port 8443',
      fence,
      '<!-- not run: needs PostgreSQL set up by hand -->',
      `${fence}sql`,
      'SELECT 1;',
      fence,
    );
    expect(examples.map((e) => [e.exits, e.background, e.notRun])).toEqual([
      [22, false, undefined],
      [0, true, undefined],
      [0, false, 'needs PostgreSQL set up by hand'],
    ]);
  });

  it('says which blocks it cannot read: an unknown comment, an unmarked language, an output of nothing', () => {
    const { problems } = page(
      '<!-- outptu -->',
      `${fence}sh`,
      'true',
      fence,
      `${fence}sql`,
      'SELECT 1;',
      fence,
    );
    expect(problems).toEqual([
      'line 1: an unknown comment <!-- outptu -->: one of output, stderr, file: PATH, exits N, background: WHY, not run: WHY',
      'line 5: the test runs no ```sql block: say why with <!-- not run: … -->',
    ]);
    expect(page('<!-- output -->', `${fence}text`, 'x', fence).problems).toEqual([
      'line 2: an output with no example above it',
    ]);
  });

  it('keeps a comment that is not directly above a block out of it', () => {
    const { examples, problems } = page('<!-- not run: x -->', '', `${fence}sh`, 'true', fence);
    expect(problems).toEqual([]);
    expect(examples[0]!.notRun).toBeUndefined();
  });
});

describe('outputs', () => {
  it('blanks what differs between runs on both sides alike', () => {
    const printed = '4 rows: 2 matched in 0.0 s (298 rows/s)\n{"request_id":"k3j9x2-1a"}';
    const actual =
      'npm warn Unknown user config "nodedir".\r\n4 rows: 2 matched in 1.3 s (1,298 rows/s)  \r\n{"request_id":"zz-9"}\n';
    expect(normalise(actual)).toBe(normalise(printed));
    expect(normalise('a server (pid 4242) with (2 workers)')).toBe(
      normalise('a server (pid 7) with (1 worker)'),
    );
    expect(normalise('Jane')).not.toBe(normalise('Jill'));
  });

  it('moves the ports a page prints to the ones its examples run on, and back in their output', () => {
    const ports = new PortMap();
    ports.set(8080, 40001);
    ports.set(8443, 40002);
    expect(ports.toActual("curl 'localhost:8080/x' https://127.0.0.1:8443/y --port 8443 :80800")).toBe(
      "curl 'localhost:40001/x' https://127.0.0.1:40002/y --port 40002 :80800",
    );
    expect(ports.toPrinted('listening on https://127.0.0.1:40002')).toBe(
      'listening on https://127.0.0.1:8443',
    );
    expect(requestedPorts('serve --port 8443\nserve --port 8443 --port 9000')).toEqual([8443, 9000]);
  });

  it("reads a TypeScript example's promised output from its console.log comments", () => {
    expect(
      promisedLines("const a = 1; // not this\nconsole.log(a); // 1\n  console.log('x', a); // x 1"),
    ).toEqual(['1', 'x 1']);
  });
});
