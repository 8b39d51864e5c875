// The Store interface: every backend (SQLite, PostgreSQL) implements all of it, and one contract suite tests each.

import type { SearchFacts } from '../search/facts.js';
import type { CompanyFilters, PeopleFilters, SearchPage, SearchQuery } from '../search/query.js';

export type Entity = 'people' | 'companies';

/** A value, or a promise of it: what a backend that can answer at once answers without a promise. */
export type MaybePromise<T> = T | Promise<T>;

/** True for a promise: the answer is yet to come. */
export const isPromise = <T>(value: MaybePromise<T>): value is Promise<T> => value instanceof Promise;

/** Kinds of identifier held in the identifier index, per entity. */
export type PersonIdentifierKind =
  | 'linkedin'
  | 'work_email'
  | 'personal_email'
  | 'work_email_sha256'
  | 'personal_email_sha256'
  | NameAtCompanyKind;
/**
 * A person's last name at their current company, keyed by how the company is named: its id, the domain
 * of its website, its LinkedIn slug, or its folded name (src/identifiers/person-name.ts).
 */
export type NameAtCompanyKind =
  | 'name_at_company_id'
  | 'name_at_domain'
  | 'name_at_linkedin'
  | 'name_at_company_name';
export type CompanyIdentifierKind = 'linkedin' | 'domain' | 'abn';
export type IdentifierKind = PersonIdentifierKind | CompanyIdentifierKind;

/** One normalised identifier of a record, e.g. { kind: 'work_email', value: 'jane@acme.com.au' }. */
export interface Identifier {
  kind: IdentifierKind;
  value: string;
}

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
   * Its search columns (src/search/facts.ts), when worked out already (by an import's parse workers);
   * the store derives them from the body otherwise.
   */
  facts?: SearchFacts;
}

/**
 * What an upsert did with a batch: records whose id was not on file (`inserted`) and records that replaced
 * one with their id (`updated`, unchanged ones included). A batch is upserted in turn, so an id repeated
 * in it counts once as inserted (when it was new) and its repeats as updated.
 */
export interface UpsertCounts {
  inserted: number;
  updated: number;
}

/** A bulk load under way: each batch is written in one transaction (crash safety per batch, as upsert). */
export interface BulkLoad {
  upsert(records: RecordToStore[]): Promise<UpsertCounts>;
  /** Builds the indexes; must be called, even after a failure (the batches written are kept). */
  finish(): Promise<void>;
}

export type Scope = 'people:read' | 'company:read';
export const ALL_SCOPES: readonly Scope[] = ['people:read', 'company:read'];

/** An API key as stored: never the token, only its SHA-256 hash. Dates are ISO-8601 strings. */
export interface ApiKey {
  id: string;
  name: string;
  hash: string;
  scopes: Scope[];
  /** Requests per second; the bucket holds one second's worth. */
  rate: number;
  /** Matched lookups per calendar month (UTC), or null for none. */
  quota: number | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/**
 * A key as read back from the store: its settings and, after a rotation, the hash of the token it
 * replaced, accepted until `previous_expires_at` (both null when the key was never rotated).
 */
export interface StoredKey extends ApiKey {
  previous_hash: string | null;
  previous_expires_at: string | null;
}

/** The settings `updateKey` changes, each only when given; a key's id and token are never changed so. */
export type KeyChanges = Partial<Pick<ApiKey, 'name' | 'scopes' | 'rate' | 'quota' | 'expires_at'>>;

/** The operations metered and audited: the lookups `/people` and `/company`, and the two searches. */
export type Operation = 'people' | 'company' | 'people_search' | 'company_search';
export const OPERATIONS: readonly Operation[] = ['people', 'company', 'people_search', 'company_search'];
/** The operations a quota counts (matched lookups); searches cost nothing against it. */
export const QUOTA_OPERATIONS: readonly Operation[] = ['people', 'company'];

/** What happened to a key's requests: every request, and each outcome (a 5xx counts only as a request). */
export interface UsageCounts {
  requests: number;
  matched: number;
  not_found: number;
  ambiguous: number;
  /** Any other 4xx: bad parameters, and 401/402/403/429 for a known key. */
  rejected: number;
}

/** Usage of one key on one UTC day ('YYYY-MM-DD') for one operation. */
export interface UsageRow extends UsageCounts {
  key_id: string;
  day: string;
  operation: Operation;
}

export interface UsageFilter {
  keyId?: string;
  /** First day included, 'YYYY-MM-DD'. */
  since?: string;
}

/** One keyed lookup as audited: parameter names (never their values) and the record ids disclosed. */
export interface AuditEntry {
  /** ISO-8601 time of the request. */
  at: string;
  key_id: string;
  operation: Operation;
  params: string[];
  /** The record id on a 200/304, the ids listed by a 409, none otherwise. */
  matched: string[];
  status: number;
}

/** An audit entry with its lists comma-joined, as the stores keep them and the journal carries them. */
export interface AuditRow {
  at: string;
  key_id: string;
  operation: Operation;
  /** Parameter names, comma-joined (none hold a comma). */
  params: string;
  /** Record ids, comma-joined (none hold a comma). */
  matched: string;
  status: number;
}

/** What a run of the accounting journal adds to the store (src/accounting/journal-format.ts). */
export interface AccountingBatch {
  audit: AuditRow[];
  usage: UsageRow[];
  /** Matched lookups per period ('YYYY-MM') and key id. */
  quota: Map<string, Map<string, number>>;
}

export interface AuditFilter {
  keyId?: string;
  /** Entries that disclosed this record id. */
  recordId?: string;
  /** Earliest time included (ISO-8601 date or time). */
  since?: string;
  /** At most this many entries: the oldest, or the newest with `newestFirst`. */
  limit?: number;
  /** Newest first (time, then the order they were written in, both descending); oldest first otherwise. */
  newestFirst?: boolean;
}

export interface Store {
  readonly backend: 'sqlite' | 'postgres';

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
   * People matching every filter (and `q`'s words), ordered by id, or by rank then id with `q`, from
   * `query.start`: the page's records (id and stored body) and the total, exact up to TOTAL_CAP. Every
   * write keeps the search tables in step, so a search sees what a lookup would.
   */
  searchPeople(query: SearchQuery<PeopleFilters>): Promise<SearchPage>;
  /** Companies matching every filter (and `q`), as `searchPeople`. */
  searchCompanies(query: SearchQuery<CompanyFilters>): Promise<SearchPage>;
  /** Removes records and their identifiers; returns how many existed. */
  delete(entity: Entity, ids: string[]): Promise<number>;
  /** Every stored body, in id order. */
  exportBodies(entity: Entity): AsyncIterable<string>;
  count(entity: Entity): Promise<number>;

  createKey(key: ApiKey): Promise<void>;
  /**
   * The key whose current token hash, or any it had before a rotation, is `hash`. Which one matched is
   * told by comparing `key.hash` and `key.previous_hash` with `hash` (neither: a token rotated out by an
   * earlier rotation); the caller checks the previous token's grace period. Hashes other than the
   * current one are looked up only when it does not match.
   * Answered at once by a backend that holds its keys in memory (SQLite), so a lookup authenticates
   * without a promise; a commit elsewhere (a revocation) is seen by the next request all the same.
   */
  findKeyByHash(hash: string): MaybePromise<StoredKey | undefined>;
  getKey(id: string): Promise<StoredKey | undefined>;
  listKeys(): Promise<StoredKey[]>;
  /**
   * Changes an unrevoked key's settings in place: the fields given, and only those (a null quota or
   * expiry removes it). Its id, token and usage stay. Seen by a running server's next request, as a
   * revocation is. False when no such key or revoked.
   */
  updateKey(id: string, changes: KeyChanges): Promise<boolean>;
  /** Marks a key revoked; false when no such key or already revoked. */
  revokeKey(id: string, at: Date): Promise<boolean>;
  /**
   * Gives an unrevoked key a new token hash; the current hash becomes the previous one, accepted
   * until `previousExpiresAt` (a previous one from an earlier rotation is then accepted no longer),
   * and is kept for good so that findKeyByHash still names the key. False when no such key or revoked.
   */
  rotateKey(id: string, hash: string, previousExpiresAt: Date): Promise<boolean>;

  /** Matched lookups counted against a key in a period ('YYYY-MM'). */
  quotaUsed(keyId: string, period: string): Promise<number>;
  /** Adds to those counts; `counts` maps key id to the number to add. */
  addQuotaUse(period: string, counts: Map<string, number>): Promise<void>;

  /** Adds each row's counts to the stored ones for its key, day and operation. */
  addUsage(rows: UsageRow[]): Promise<void>;
  /** Usage rows in day, key and operation order. */
  usage(filter: UsageFilter): Promise<UsageRow[]>;

  /** Appends audit entries in one transaction. */
  addAudit(entries: AuditEntry[]): Promise<void>;
  /**
   * Folds a run of an accounting journal segment into the store, in one transaction with the segment's
   * new offset (`to`), and only if the segment is folded exactly up to `from`: whoever folds a run, and
   * however often it is tried, it is counted once. False when the offset was not `from`.
   */
  foldJournal(segment: string, from: number, to: number, batch: AccountingBatch): Promise<boolean>;
  /** How far a journal segment has been folded, in bytes (0 when never; negative once forgotten). */
  journalOffset(segment: string): Promise<number>;
  /**
   * Forgets a segment whose file is deleted: no run of it folds again, not even one a late folder read
   * before the file went. The mark that says so is removed a day later (the name is never used again).
   */
  forgetJournal(segment: string): Promise<void>;
  /** Audit entries in time order, oldest first unless `filter.newestFirst`. */
  audit(filter: AuditFilter): Promise<AuditEntry[]>;
  /** Removes entries older than `before`; returns how many. */
  pruneAudit(before: Date): Promise<number>;

  /**
   * In one transaction: deletes the records and remembers the hashes as one suppression (see
   * src/privacy/suppression.ts). Returns how many records existed.
   */
  suppress(entity: Entity, recordIds: string[], hashes: string[]): Promise<number>;
  /** Forgets every suppression that holds this hash; returns how many hashes were removed. */
  unsuppress(entity: Entity, hash: string): Promise<number>;
  /** Every suppressed hash of an entity. */
  suppressedHashes(entity: Entity): Promise<Set<string>>;

  /** Resolves when the store answers queries; rejects otherwise (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
