// What an example prints, made comparable with what its page shows: the parts no two runs share blanked,
// and the ports a page prints mapped to the free ones its examples run on.

/** Each part of an output that differs from run to run, and what stands for it on both sides. */
const VARYING: Array<[RegExp, string]> = [
  [/ in [\d.]+ s\b/g, ' in … s'], // how long a command took
  [/\([\d,]+( rows)?\/s\)/g, '(…$1/s)'], // and its rate
  [/"request_id":"[^"]*"/g, '"request_id":"…"'],
  [/"seconds":[\d.]+/g, '"seconds":…'], // how long a command took, as its --json says
  [/\benr_[A-Za-z0-9]{36}\b/g, 'enr_…'], // a token
  [/\bkey_[A-Za-z0-9]{10}\b/g, 'key_…'], // a key id
  [/\bpid \d+\b/g, 'pid …'],
  [/\(\d+ workers?\)/g, '(… workers)'], // one per core by default
];

/** Lines npm prints about its own configuration, not the example's. */
const NPM_NOTICE = /^npm (warn|notice) /;

export function normalise(text: string): string {
  let out = text
    .replaceAll('\r\n', '\n')
    .split('\n')
    .filter((line) => !NPM_NOTICE.test(line))
    .map((line) => line.trimEnd())
    .join('\n')
    .trim();
  for (const [pattern, stand] of VARYING) out = out.replace(pattern, stand);
  return out;
}

/** The ports a page prints, each moved to the one its examples run on. */
export class PortMap {
  private readonly ports = new Map<number, number>();

  /** `printed` is served on `actual`. */
  set(printed: number, actual: number): void {
    this.ports.set(printed, actual);
  }

  has(printed: number): boolean {
    return this.ports.has(printed);
  }

  /** An example's code with each printed port replaced by its actual one: `--port N` and `host:N`. */
  toActual(code: string): string {
    let out = code;
    for (const [printed, actual] of this.ports) {
      out = out
        .replace(new RegExp(`--port ${printed}\\b`, 'g'), `--port ${actual}`)
        .replace(new RegExp(`\\b(localhost|127\\.0\\.0\\.1):${printed}\\b`, 'g'), `$1:${actual}`);
    }
    return out;
  }

  /** An example's output with each actual port replaced by the printed one, as the page shows it. */
  toPrinted(output: string): string {
    let out = output;
    for (const [printed, actual] of this.ports)
      out = out.replace(new RegExp(`\\b(localhost|127\\.0\\.0\\.1):${actual}\\b`, 'g'), `$1:${printed}`);
    return out;
  }
}

/** The ports a page's examples ask a server to listen on (`--port N`), besides the one the test serves. */
export function requestedPorts(code: string): number[] {
  return [...new Set([...code.matchAll(/--port (\d+)\b/g)].map((m) => Number(m[1])))];
}

/** What a TypeScript example promises it prints: the `// ` comment ending each `console.log` line. */
export function promisedLines(code: string): string[] {
  return code
    .split('\n')
    .filter((line) => line.trim().startsWith('console.log('))
    .map((line) => line.slice(line.lastIndexOf('// ') + 3).trim());
}
