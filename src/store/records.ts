// The records role of the store: records and their identifiers, written by batch, found by id or identifier.
import type { RecordChange } from '../changes/classify.js';
import type { RemovalReason } from '../changes/events.js';
import type { Entity, Identifier, IdentifierKind } from '../vocabulary/entities.js';
import type { MaybePromise } from './maybe-promise.js';
import type { SearchFacts } from './search-facts.js';

/** A record as served: the stored JSON text, sent as it is, and its entity tag. */
export interface StoredRecord {
  id: string;
  body: string;
  etag: string;
}

/** A record as a lookup serves it: the stored bytes as they are (a Buffer where the backend gives one). */
export interface ServedRecord {
  id: string;
  etag: string;
  body: Buffer | string;
}

/** A record ready to be written: validated body text, its etag and every identifier it carries. */
export interface RecordToStore extends StoredRecord {
  identifiers: Identifier[];
  /**
   * Its search columns (src/store/search-facts.ts), when worked out already (by an import's parse
   * workers); the store derives them from the body otherwise.
   */
  facts?: SearchFacts;
}

/**
 * What an upsert did with a batch: records whose id was not on file (`inserted`), records that replaced one
 * with other content (`updated`) and records whose content was already on file (`unchanged`: not
 * rewritten, nothing logged). A batch is upserted in turn, so an id repeated in it counts once as inserted
 * (when it was new) and its repeats as updated or unchanged against the one before.
 */
export interface UpsertCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

/** Counts of nothing, to add a batch's records to. */
export const noneCounted = (): UpsertCounts => ({ inserted: 0, updated: 0, unchanged: 0 });

/** Adds one record's change, as the change log classified it, to `counts`. */
export function countChange(counts: UpsertCounts, change: RecordChange): void {
  if (change === 'created') counts.inserted++;
  else if (change === 'updated') counts.updated++;
  else if (change === 'unchanged') counts.unchanged++;
}

/** A bulk load under way: each batch is written in one transaction (crash safety per batch, as upsert). */
export interface BulkLoad {
  upsert(records: RecordToStore[]): Promise<UpsertCounts>;
  /** Builds the indexes; must be called, even after a failure (the batches written are kept). */
  finish(): Promise<void>;
}

/**
 * Records and their identifiers. Every write is one transaction on each backend, which keeps the search
 * tables (and, with the change log, its entries) in step with the records it writes.
 */
export interface RecordStore {
  /** Ids of the records carrying this normalised identifier, at most `limit` of them, in id order. */
  findIds(entity: Entity, kind: IdentifierKind, value: string, limit: number): Promise<string[]>;
  getRecord(entity: Entity, id: string): Promise<StoredRecord | undefined>;
  /**
   * What a lookup serves for one key, in one read: the record of an `id`, or the records carrying a
   * normalised identifier — at most `limit`, in id order, each with its entity tag and stored bytes.
   * Answered at once (no promise) by a backend that can: SQLite.
   */
  findRecords(
    entity: Entity,
    kind: IdentifierKind | 'id',
    value: string,
    limit: number,
  ): MaybePromise<ServedRecord[]>;

  /**
   * Upserts one batch by id in one transaction: each record's identifiers replace its previous ones
   * atomically with the record. A batch is wholly in or wholly out. Says how many records were new and
   * how many replaced one, counted as the batch is written (no query of its own).
   */
  upsert(entity: Entity, records: RecordToStore[]): Promise<UpsertCounts>;
  /**
   * Starts a bulk load of an entity that holds no records (an import into an empty store): its batches
   * are written without maintaining the identifier indexes, which `finish` builds once, sorted. Until
   * then, lookups of the entity by identifier may not find what the load has written (by id they do).
   * Undefined when the entity is not empty, or the backend has no faster way (PostgreSQL: COPY already).
   */
  beginBulkLoad?(entity: Entity): Promise<BulkLoad | undefined>;
  /**
   * Removes records and their identifiers, logging each removal with `reason` (default `deleted`, as
   * `enrich delete`; a snapshot refresh's are `snapshot`); returns how many existed.
   */
  delete(entity: Entity, ids: string[], reason?: RemovalReason): Promise<number>;
  /** Every stored body, in id order. */
  exportBodies(entity: Entity): AsyncIterable<string>;
  /** Every stored id, in id order, by pages (what a snapshot refresh compares its files with). */
  exportIds(entity: Entity): AsyncIterable<string[]>;
  /**
   * Every stored record's etag, by pages, in no set order: what an import compares its lines with before
   * parsing them (an etag is derived from the exact body, see ingest/prepare.ts).
   */
  exportEtags(entity: Entity): AsyncIterable<string[]>;
  count(entity: Entity): Promise<number>;
}
