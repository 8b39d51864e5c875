// What both list readers share: rows are taken as each chunk of the input is parsed, and handed on in batches.
import { ListError, type ListRow } from './list.js';

/** Reads rows of a list, header first: the columns are known before any row is matched. */
export interface ListReader {
  /** The column names: the CSV header row, or the keys of the first NDJSON object. */
  readonly columns: readonly string[];
  /** The rows in input order, a batch per chunk read. */
  batches(): AsyncGenerator<ListRow[]>;
}

export abstract class ChunkedReader implements ListReader {
  /** Rows parsed and not yet handed on. */
  protected rows: ListRow[] = [];
  private ended = false;

  constructor(private readonly source: AsyncIterator<Buffer>) {}

  abstract get columns(): readonly string[];

  /** Parses the next chunk of the input, or (undefined) its end. */
  protected abstract parse(chunk: Buffer | undefined): Promise<void> | void;

  /** Reads until the columns are known (`known()`), or fails with `missing` when the input ends first. */
  protected async readColumns(known: () => boolean, missing: string): Promise<this> {
    while (!known() && !this.ended) await this.readChunk();
    if (!known()) throw new ListError(missing);
    return this;
  }

  async *batches(): AsyncGenerator<ListRow[]> {
    for (;;) {
      if (this.rows.length > 0) {
        yield this.rows;
        this.rows = [];
      }
      if (this.ended) return;
      await this.readChunk();
    }
  }

  private async readChunk(): Promise<void> {
    const next = await this.source.next();
    if (next.done) this.ended = true;
    await this.parse(next.done ? undefined : next.value);
  }
}
