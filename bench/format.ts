// Markdown for results: numbers as people read them, tables, and the heading every entry opens with.
import type { Machine } from './system.js';

export const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en') : '–');
export const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');
export const times = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–');
export const cores = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');
export const mib = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(0)} MiB` : '–');
export const seconds = (s: number) => (Number.isFinite(s) ? `${s.toFixed(1)} s` : '–');

/** A markdown table; the columns named in `right` are right-aligned. */
export function table(header: string[], rows: string[][], right: number[] = []): string {
  const align = header.map((_, i) => (right.includes(i) ? '---:' : '---'));
  return [header, align, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** The exact command, as typed: `npm run bench -- --skip-million`. */
export function commandLine(script: string, argv: string[]): string {
  const quoted = argv.map((a) => (/^[\w./=,:-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`));
  return `npm run ${script}${quoted.length > 0 ? ` -- ${quoted.join(' ')}` : ''}`;
}

/** `### 2026-11-22 05:10 UTC — \`command\`` and the machine it ran on. */
export function entryHeading(date: Date, command: string, machine: Machine, built: string): string {
  const when = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return [
    `### ${when} — \`${command}\``,
    '',
    `Machine: ${machine.cores} cores (${machine.cpu}), ${machine.memory} RAM, ${machine.os}. ` +
      `Node ${machine.node}. Code: ${built}.`,
  ].join('\n');
}
