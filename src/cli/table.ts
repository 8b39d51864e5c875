// Plain-text tables for command output: columns padded to their widest cell, no trailing spaces.

/**
 * @example formatTable(['ID', 'NAME'], [['key_1', 'crm']]) // 'ID     NAME\nkey_1  crm\n'
 */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows]
    .map(
      (row) =>
        `${row
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}
