// Reads an NDJSON list: one JSON object per line; its columns are the keys of the objects in its first chunk.
// A line that holds no JSON object is a malformed row, kept in its place.
import { isBlank, LineSplitter } from '../lines.js';
import type { ListRow } from './list.js';
import { ChunkedReader, type ListReader } from './reader.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A line's row: its object, or why it has none (never quoting the line: it may hold personal data). */
function rowOf(text: string, line: number): ListRow {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { text, malformed: { line, reason: 'not valid JSON' } };
  }
  return isObject(value)
    ? { text, object: value }
    : { text, malformed: { line, reason: 'not a JSON object' } };
}

class NdjsonReader extends ChunkedReader {
  private line = 0;
  private first: Record<string, unknown> | undefined;
  private keys: string[] = [];
  private readonly splitter = new LineSplitter((buffer, start, end) => this.take(buffer, start, end));

  /** Every key of the objects read before matching starts (the first chunk, or up to the first object). */
  get columns(): readonly string[] {
    return this.keys;
  }

  async open(): Promise<this> {
    await this.readColumns(() => this.first !== undefined, 'no line of the list holds a JSON object');
    this.keys = [...new Set(this.rows.flatMap((row) => (row.object ? Object.keys(row.object) : [])))];
    return this;
  }

  protected parse(chunk: Buffer | undefined): void {
    if (chunk === undefined) this.splitter.end();
    else this.splitter.push(chunk);
  }

  private take(buffer: Buffer, start: number, end: number): void {
    this.line++;
    if (isBlank(buffer, start, end)) return;
    if (buffer[end - 1] === 0x0d) end--;
    let text = buffer.toString('utf8', start, end);
    if (this.line === 1 && text.startsWith('\ufeff')) text = text.slice(1);
    const row = rowOf(text, this.line);
    this.first ??= row.object;
    this.rows.push(row);
  }
}

/** Reads an NDJSON list (BOM stripped) up to and including its first object. */
export function openNdjsonReader(chunks: AsyncIterable<Buffer>): Promise<ListReader> {
  return new NdjsonReader(chunks[Symbol.asyncIterator]()).open();
}
