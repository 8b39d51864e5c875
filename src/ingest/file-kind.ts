// What a file given to `enrich import` holds, told from its first bytes: NDJSON records, or something else
// (CSV, a JSON array, binary data) that is refused at once with what to do instead of a line error per line.
import { openNdjson } from './lines.js';

export type FileKind =
  | { kind: 'ndjson' }
  /** Text whose first line is neither a JSON object nor CSV: imported, its lines rejected one by one. */
  | { kind: 'text' }
  | { kind: 'empty' }
  /** `header`: the first line, cut to a readable length. */
  | { kind: 'csv'; header: string }
  | { kind: 'json-array' }
  /** `what`: the format its signature names, when known (`a ZIP archive (an Excel workbook?)`). */
  | { kind: 'binary'; what: string | undefined };

/** Bytes of a file's (decompressed) start that are looked at: enough for a header row, cheap to read. */
export const SNIFF_BYTES = 64 * 1024;

/** Signatures of formats people hand an import by mistake, and how they are named. */
const SIGNATURES: Array<[bytes: number[], what: string]> = [
  [[0x50, 0x4b, 0x03, 0x04], 'a ZIP archive (an Excel workbook?)'],
  [[0xd0, 0xcf, 0x11, 0xe0], 'an Excel 97–2003 workbook'],
  [[0x25, 0x50, 0x44, 0x46], 'a PDF document'],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], 'an SQLite database (a store? see enrich backup and restore)'],
  [[0xff, 0xfe], 'UTF-16 text (save it as UTF-8)'],
  [[0xfe, 0xff], 'UTF-16 text (save it as UTF-8)'],
  [[0x42, 0x5a, 0x68], 'bzip2 data (decompress it, or recompress it with gzip)'],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a], 'xz data (decompress it, or recompress it with gzip)'],
  [[0x28, 0xb5, 0x2f, 0xfd], 'zstd data (decompress it, or recompress it with gzip)'],
];

const startsWith = (bytes: Buffer, signature: number[]) => signature.every((byte, i) => bytes[i] === byte);

/** A control character no text file holds (NUL to BS, SO to US, DEL): a terminal would act on some of them. */
const isStrayControl = (byte: number) => byte < 0x09 || (byte > 0x0d && byte < 0x20) || byte === 0x7f;

/** True when the bytes are not UTF-8 text: a NUL, not UTF-8 (a sequence cut at the end allowed), stray controls. */
function isBinary(head: Buffer): boolean {
  if (head.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
  } catch {
    return true;
  }
  let stray = 0;
  for (const byte of head) if (isStrayControl(byte)) stray++;
  return stray > head.length / 100;
}

/** Comma, semicolon or tab outside double quotes: a line that reads as a CSV header row. */
const looksLikeCsv = (line: string) => /^[^{[]/.test(line) && /[,;\t]/.test(line.replace(/"[^"]*"/g, ''));

/**
 * What a file's first bytes (decompressed: gzip is a transport, not a kind) say it holds.
 * @example fileKind(Buffer.from('Name,Email\nJane,jane@acme.com.au\n')) // { kind: 'csv', header: 'Name,Email' }
 */
export function fileKind(head: Buffer): FileKind {
  for (const [signature, what] of SIGNATURES)
    if (startsWith(head, signature)) return { kind: 'binary', what };
  if (isBinary(head)) return { kind: 'binary', what: undefined };
  const text = head.toString('utf8').replace(/^\ufeff/, '');
  const start = text.search(/\S/);
  if (start < 0) return { kind: 'empty' };
  if (text[start] === '{') return { kind: 'ndjson' };
  if (text[start] === '[') return { kind: 'json-array' };
  const line = text.slice(start).split('\n', 1)[0]!.trimEnd();
  if (looksLikeCsv(line)) return { kind: 'csv', header: line.length > 80 ? `${line.slice(0, 77)}…` : line };
  return { kind: 'text' };
}

/** The first SNIFF_BYTES of a file, gunzipped when it is gzip (a gzip stream cut short gives what it has). */
export async function readHead(file: string): Promise<Buffer> {
  const source = await openNdjson(file);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of source.chunks()) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= SNIFF_BYTES) break;
    }
  } catch {
    // A corrupt or truncated gzip: what was read is judged, the import reports the rest.
  }
  return Buffer.concat(chunks).subarray(0, SNIFF_BYTES);
}
