// The ids a refresh's files name, compared with the ids the store holds: the stored records the files leave
// out (the refresh removes them) and the ids the files name more than once. Kept light: the thread that
// reads a large file's ids (file-ids-worker.ts, started by read-file-ids.ts) loads only this.
import { IdSet } from './id-set.js';
import { lineId } from './line-id.js';
import { isBlank, LineSplitter, openNdjson } from './lines.js';

export interface FileIdsResult {
  /** The stored ids the files do not name. */
  absent: string[];
  /** How many ids are stored. */
  stored: number;
  /** The ids the files name more than once. */
  repeated: string[];
}

/** The files' ids, read line by line without validating records (the import does that); then the stored ids'. */
export class FileIds {
  /** Millions, at the sizes a refresh reaches: held compactly. */
  private readonly named = new IdSet();
  private readonly repeated = new Set<string>();
  private readonly absent: string[] = [];
  private stored = 0;

  async read(files: readonly string[]): Promise<void> {
    for (const file of files) {
      const source = await openNdjson(file);
      const splitter = new LineSplitter((buffer, start, end) => {
        if (isBlank(buffer, start, end)) return;
        const id = lineId(buffer, start, end);
        if (id === undefined) return;
        if (!this.named.add(id)) this.repeated.add(id);
      });
      for await (const chunk of source.chunks()) splitter.push(chunk);
      splitter.end();
    }
  }

  /** A page of stored ids, once the files are read. */
  compare(page: readonly string[]): void {
    this.stored += page.length;
    for (const id of page) if (!this.named.has(id)) this.absent.push(id);
  }

  result(): FileIdsResult {
    this.named.clear();
    return { absent: this.absent, stored: this.stored, repeated: [...this.repeated] };
  }
}

/** What the file-ids thread is told: a page of stored ids (as JSON), or that there are no more. */
export type FileIdsMessage = { page: string } | 'end';
/** What it says: the comparison, or why the files could not be read. */
export type FileIdsReport = { result: FileIdsResult } | { failed: { message: string; code?: string } };
