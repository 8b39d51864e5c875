// What a list is, told from its first line: CSV or NDJSON, the CSV's delimiter, line ending and byte order mark.
import { ListError, type ListFormat } from './list.js';

export const DELIMITERS = [',', ';', '\t'] as const;
export type Delimiter = (typeof DELIMITERS)[number];

export interface ListShape {
  format: ListFormat;
  delimiter: Delimiter;
  /** The first line's ending, kept for the output: `\r\n` (spreadsheets on Windows) or `\n`. */
  lineEnding: '\n' | '\r\n';
  /** The input opened with a UTF-8 byte order mark (Excel's "CSV UTF-8"); the output does too. */
  bom: boolean;
}

const BOM = '\ufeff';

/**
 * The delimiter of a CSV header line: whichever of comma, semicolon and tab occurs most often outside double
 * quotes; a comma when none does (a one-column file) or on a tie.
 * @example detectDelimiter('Name;"Email, work";LinkedIn') // ';'
 */
export function detectDelimiter(headerLine: string): Delimiter {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const char of headerLine) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  let best: Delimiter = ',';
  for (const delimiter of DELIMITERS) if (counts.get(delimiter)! > counts.get(best)!) best = delimiter;
  return best;
}

/**
 * The shape of a list from its first line (decoded, up to and excluding its `\n`): NDJSON when the line opens
 * with `{`, else CSV. An empty input or a JSON array is a ListError.
 */
export function detectShape(firstLine: string): ListShape {
  const bom = firstLine.startsWith(BOM);
  const line = bom ? firstLine.slice(BOM.length) : firstLine;
  const lineEnding = line.endsWith('\r') ? '\r\n' : '\n';
  const opening = line.trimStart()[0];
  if (opening === undefined) throw new ListError('the list is empty: its first line should be a header row');
  if (opening === '[') throw new ListError('a JSON array is not a list: give NDJSON, one object per line');
  if (opening === '{') return { format: 'ndjson', delimiter: ',', lineEnding, bom };
  return { format: 'csv', delimiter: detectDelimiter(line), lineEnding, bom };
}
