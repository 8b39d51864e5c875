// What `enrich match` passes between its stages: the rows read from a list and how each one ended.

import type { MatchStatus } from '../../vocabulary/match-statuses.js';

export { MATCH_STATUSES, type MatchStatus } from '../../vocabulary/match-statuses.js';

/** A list's format, detected by content: CSV (with a header row) or NDJSON (one JSON object per line). */
export type ListFormat = 'csv' | 'ndjson';

/** One row of the list, as read. Exactly one of `fields` (CSV) and `text` (NDJSON) is set. */
export interface ListRow {
  /** CSV: the row's values, one per header column (a malformed row's are padded or cut to fit). */
  fields?: string[];
  /** NDJSON: the line as given, and the object it holds (absent when it does not hold one). */
  text?: string;
  object?: Record<string, unknown>;
  /** A row that could not be read as one: written as `invalid`, not looked up, and reported by its line. */
  malformed?: { line: number; reason: string };
}

/** A matched record as a resolver has it: the stored JSON bytes (local) or a parsed object (remote). */
export type MatchedRecord = { json: string | Buffer } | { value: Record<string, unknown> };

/** A row's lookup parameters; undefined for a malformed row, which is not looked up. */
export type RowParams = Record<string, string> | undefined;

/**
 * Looks rows up, `chunkSize` rows a call, up to `inFlight` calls pending at once; answers without a promise
 * when it can (the local store on SQLite), which keeps the per-row cost down.
 */
export interface Resolver {
  readonly chunkSize: number;
  readonly inFlight: number;
  resolve(params: readonly RowParams[]): RowOutcome[] | Promise<RowOutcome[]>;
}

/** How one row ended, as written to the output. */
export interface RowOutcome {
  status: MatchStatus;
  /** The parameters that matched (matched rows). */
  matchedBy?: readonly string[];
  id?: string;
  record?: MatchedRecord;
  /** How likely (1–10) the record is the one asked for, when it was matched by name and company. */
  likelihood?: number;
  /** Why the row was not matched, when the lookup said (the problem's detail): invalid, ambiguous, over quota. */
  problem?: string;
}

/** A list that cannot be matched as given (no usable column, an empty file, a refused request): exit 1. */
export class ListError extends Error {
  override name = 'ListError';
}
