// Reads a CSV list with csv-parse: the header row, then the rows in batches, each malformed row kept in its
// place with the line it starts on (a row whose field count differs from the header's, or a quote left open).
import { once } from 'node:events';
import { type CsvError, Parser } from 'csv-parse';
import type { Delimiter } from './detect.js';
import { LineCounter } from './line-counter.js';
import { ListError } from './list.js';
import { ChunkedReader, type ListReader } from './reader.js';

const countNewlines = (fields: readonly string[]) =>
  fields.reduce((count, field) => count + (field.split('\n').length - 1), 0);

/** A row's fields made as many as the header's: missing ones empty, extra ones cut. */
const fitted = (fields: string[], width: number) =>
  fields.length >= width
    ? fields.slice(0, width)
    : [...fields, ...Array<string>(width - fields.length).fill('')];

class CsvReader extends ChunkedReader {
  private readonly parser: Parser;
  private readonly lines = new LineCounter();
  private header: string[] | undefined;
  /** The line the next record starts on. */
  private nextLine = 1;
  private failure: Error | undefined;

  constructor(source: AsyncIterator<Buffer>, delimiter: Delimiter) {
    super(source);
    // relax_quotes: a stray quote inside a field (5" screen) is kept as text, as spreadsheets do.
    this.parser = new Parser({
      delimiter,
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_records_with_error: true,
    });
    // Records arrive synchronously inside write(), so info.bytes is the end of the record at hand.
    this.parser.on('data', (fields: string[]) => this.take(fields));
    this.parser.on('skip', (error: CsvError) => this.skip(error));
    this.parser.on('error', (error: Error) => {
      this.failure ??= error;
    });
  }

  get columns(): readonly string[] {
    return this.header ?? [];
  }

  open(): Promise<this> {
    return this.readColumns(
      () => this.header !== undefined,
      'the list is empty: its first line should be a header row',
    );
  }

  protected async parse(chunk: Buffer | undefined): Promise<void> {
    if (chunk === undefined) {
      const ended = once(this.parser, 'end');
      this.parser.end();
      await ended;
    } else {
      this.lines.push(chunk);
      this.parser.write(chunk);
    }
    if (this.failure) throw this.failure;
  }

  private take(fields: string[]): void {
    const line = this.nextLine;
    this.nextLine = this.lines.lineAt(this.parser.info.bytes);
    if (this.header === undefined) {
      this.header = fields;
      return;
    }
    const width = this.header.length;
    // A blank line is no row (nor, beside a wider header, a line of spaces).
    if (fields.length === 1 && (fields[0] === '' || (width > 1 && fields[0]!.trim() === ''))) return;
    if (fields.length === width) {
      this.rows.push({ fields });
      return;
    }
    const newlines = countNewlines(fields);
    const spans = newlines > 0 ? `; it spans lines ${line}-${line + newlines} (is a quote left open?)` : '';
    const reason = `${fields.length} fields where the header has ${width}${spans}`;
    this.rows.push({ fields: fitted(fields, width), malformed: { line, reason } });
  }

  /** With relax_quotes, only a quote still open at the end of the input makes csv-parse give up a record. */
  private skip(error: CsvError): void {
    if (this.header === undefined) {
      this.failure ??= new ListError(`the header row cannot be read: ${error.message}`);
      return;
    }
    const reason =
      error.code === 'CSV_QUOTE_NOT_CLOSED'
        ? 'a quote opened here is never closed: the rest of the input was read into one field'
        : error.message;
    this.rows.push({ fields: fitted([], this.header.length), malformed: { line: this.nextLine, reason } });
  }
}

/** Reads a CSV list (BOM stripped) up to and including its header row. */
export function openCsvReader(chunks: AsyncIterable<Buffer>, delimiter: Delimiter): Promise<ListReader> {
  return new CsvReader(chunks[Symbol.asyncIterator](), delimiter).open();
}
