// What the serving index follows: the store of record's rows, the changes a write made, and how to read it.
import type { Entity } from '../../vocabulary/entities.js';

/**
 * A record as the store of record holds it: `idents` is its identifier list, JSON: `[[kind code, value], …]`
 * (SQLite) or `["<kind code>:<value>", …]` (PostgreSQL's `idents` column).
 */
export interface SourceRow {
  id: string;
  etag: string;
  body: string;
  idents: string;
}

/** One record after a write: its new row, or none when it was deleted. */
export interface RecordChange {
  id: string;
  row?: SourceRow;
}

/** How the index reads the store of record, to repair an unfinished write or to rebuild. */
export interface IndexSource {
  /** Identifies the store (a new or replaced file gets another id). */
  storeId(): string;
  /** Bumped by every transaction that writes records; the index holds the one it reflects. */
  generation(): number;
  /** The rows of these ids that exist. */
  rows(entity: Entity, ids: readonly string[]): SourceRow[];
  /** Up to `limit` rows after `afterId`, in id order. */
  page(entity: Entity, afterId: string, limit: number): SourceRow[];
  /** Up to `limit` identifier rows `[value, id]` of one kind, after `after` (from the first), by value then id. */
  identPage(entity: Entity, kind: number, after: string | undefined, limit: number): Array<[string, string]>;
}

/** What a write changes: the records of an entity, or the API keys (which servers hold in memory). */
export type WriteScope = Entity | 'keys';
