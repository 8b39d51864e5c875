// The SQLite schema as a list of migrations, applied in order and tracked in PRAGMA user_version.

import type Database from 'better-sqlite3';
import { emailSha256 } from '../../identifiers/email-hash.js';
import { namesAtCompany } from '../../identifiers/record.js';
import type { Person } from '../../schemas/person.js';
import { packSegment, recordHash, SEGMENT_ENTRIES, SEGMENT_SPAN_MS } from '../sql/audit-segment.js';
import { minutesTable } from '../sql/minutes.js';
import { SESSIONS_TABLE } from '../sql/sessions.js';
import { IDENTIFIER_KIND_CODES } from '../sql/tables.js';
import { AUDIT_BUCKET_BITS } from './audit.js';
import { POSITIONS_MIGRATION, SEARCH_MIGRATION } from './search-schema.js';
import { WEBHOOK_CLAIMER_MIGRATION, WEBHOOKS_MIGRATION } from './webhooks.js';

const recordTables = (records: string, idents: string) => `
  CREATE TABLE ${records} (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    etag TEXT NOT NULL,
    body TEXT NOT NULL
  );
  CREATE TABLE ${idents} (
    kind INTEGER NOT NULL,
    value TEXT NOT NULL,
    rid INTEGER NOT NULL,
    PRIMARY KEY (kind, value, rid)
  ) WITHOUT ROWID;
  CREATE INDEX ${idents}_rid ON ${idents} (rid);
`;

/**
 * 3: each record keeps its identifiers as JSON `[[kind, value], …]`, so a replacement knows which index
 * rows to remove without a second index on the identifier table, and an unchanged record costs no
 * index writes; the index holds record ids, so a lookup reads ids straight from it, in order.
 */
const identifiersById = (records: string, idents: string) => `
  ALTER TABLE ${records} ADD COLUMN idents TEXT NOT NULL DEFAULT '[]';
  UPDATE ${records} SET idents = (
    SELECT json_group_array(json_array(i.kind, i.value)) FROM ${idents} i WHERE i.rid = ${records}.rid
  ) WHERE rid IN (SELECT rid FROM ${idents});
  CREATE TABLE ${idents}_by_id (
    kind INTEGER NOT NULL,
    value TEXT NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (kind, value, id)
  ) WITHOUT ROWID;
  INSERT INTO ${idents}_by_id (kind, value, id)
    SELECT i.kind, i.value, r.id FROM ${idents} i JOIN ${records} r ON r.rid = i.rid;
  DROP TABLE ${idents};
  ALTER TABLE ${idents}_by_id RENAME TO ${idents};
`;

/** SQLite has no SHA-256 of its own: migrate() lends it this one, as src/identifiers/email-hash.ts hashes. */
const SHA256 = 'enrich_email_sha256';

/**
 * 9: every stored e-mail address is indexed by its hash too (kind 2 → 6, 3 → 7), as personIdentifiers lists
 * them for a record imported now: after the plain identifiers, the work addresses' hashes, then the
 * personal ones', each in the order of its address. The generation moves on, so that a serving index built
 * before is rebuilt by the next process to open it (and by a running server within a second).
 */
const hashedEmails = () => {
  const { work_email: work, personal_email: personal } = IDENTIFIER_KIND_CODES;
  const hashed = (kind: string) =>
    `CASE ${kind} WHEN ${work} THEN ${IDENTIFIER_KIND_CODES.work_email_sha256} ELSE ${IDENTIFIER_KIND_CODES.personal_email_sha256} END`;
  return `
  INSERT OR IGNORE INTO people_ident (kind, value, id)
    SELECT ${hashed('kind')}, ${SHA256}(value), id FROM people_ident WHERE kind IN (${work}, ${personal});
  UPDATE people SET idents = (
    SELECT json_group_array(json(entry) ORDER BY part, position) FROM (
      SELECT j.value AS entry, 0 AS part, j.key AS position FROM json_each(people.idents) j
      UNION ALL
      SELECT json_array(${hashed('j.value ->> 0')}, ${SHA256}(j.value ->> 1)),
             CASE j.value ->> 0 WHEN ${work} THEN 1 ELSE 2 END, j.key
      FROM json_each(people.idents) j WHERE j.value ->> 0 IN (${work}, ${personal})
    )
  ) WHERE EXISTS (SELECT 1 FROM json_each(people.idents) j WHERE j.value ->> 0 IN (${work}, ${personal}));
  UPDATE serving_state SET generation = generation + 1;`;
};

/** migrate() lends this one too: a stored person body's name-at-company identifiers, as `idents` lists them. */
const NAMES_AT_COMPANY = 'enrich_names_at_company';
/** An audit entry's ISO time in milliseconds, a record id's hash, and a run of entries packed (migration 22). */
const AUDIT_MS = 'enrich_audit_ms';
const RECORD_HASH = 'enrich_audit_record_hash';
const AUDIT_PACK = 'enrich_audit_pack';

/**
 * 11: every stored person is indexed by their last name at their current company (kinds 8–11), as
 * personIdentifiers lists them for a record imported now: after every identifier it had. The generation
 * moves on, so that the serving index is rebuilt with them.
 */
const namesAtCompanyMigration = () => `
  CREATE TEMP TABLE added_names AS
    SELECT id, ${NAMES_AT_COMPANY}(body) AS added FROM people;
  DELETE FROM added_names WHERE added = '[]';
  INSERT OR IGNORE INTO people_ident (kind, value, id)
    SELECT j.value ->> 0, j.value ->> 1, a.id FROM added_names a, json_each(a.added) j;
  UPDATE people SET idents = (
    SELECT json_group_array(json(entry) ORDER BY part, position) FROM (
      SELECT j.value AS entry, 0 AS part, j.key AS position FROM json_each(people.idents) j
      UNION ALL
      SELECT j.value, 1, j.key FROM added_names a, json_each(a.added) j WHERE a.id = people.id
    )
  ) WHERE id IN (SELECT id FROM added_names);
  DROP TABLE added_names;
  UPDATE serving_state SET generation = generation + 1;`;

const KEY_COLUMNS =
  'id, name, hash, scopes, rate, quota, created_at, expires_at, revoked_at, previous_hash, previous_expires_at';

/** The keys' table as of version 12, under a name. */
const keysTable = (name: string) => `
  CREATE TABLE IF NOT EXISTS ${name} (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    scopes TEXT NOT NULL,
    rate REAL NOT NULL,
    quota INTEGER,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    revoked_at TEXT,
    previous_hash TEXT,
    previous_expires_at TEXT
  );`;

/**
 * 13: `keys` becomes `api_keys`, its name on PostgreSQL, so that both backends share their statements
 * (src/store/sql/keys.ts). Its rows are moved in the order they were created (listings break ties of
 * `created_at` by it) rather than the table renamed: SQLite cannot rename a table only if it exists, and
 * run again over its own result (a store whose version was set back) this moves nothing and changes nothing.
 */
const keysNamedAsOnPostgres = () => `
  ${keysTable('keys')}
  ${keysTable('api_keys')}
  INSERT INTO api_keys (${KEY_COLUMNS}) SELECT ${KEY_COLUMNS} FROM keys ORDER BY rowid;
  DROP TABLE keys;`;

/**
 * 14: `api_keys` with `search_quota`, rebuilt rather than altered (its rows moved in the order they were
 * created) so that, run again over its own result (a store whose version was set back), it adds no column
 * twice.
 */
const keysWithSearchQuota = () => `
  CREATE TABLE api_keys_14 (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    scopes TEXT NOT NULL,
    rate REAL NOT NULL,
    quota INTEGER,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    revoked_at TEXT,
    previous_hash TEXT,
    previous_expires_at TEXT,
    search_quota INTEGER
  );
  INSERT INTO api_keys_14 (${KEY_COLUMNS}) SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY rowid;
  DROP TABLE api_keys;
  ALTER TABLE api_keys_14 RENAME TO api_keys;`;

/** Migration n (1-based) brings user_version from n-1 to n. Append only. */
export const MIGRATIONS: readonly string[] = [
  `${recordTables('people', 'people_ident')}
   ${recordTables('companies', 'companies_ident')}
   CREATE TABLE keys (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     scopes TEXT NOT NULL,
     rate REAL NOT NULL,
     quota INTEGER,
     created_at TEXT NOT NULL,
     expires_at TEXT,
     revoked_at TEXT
   );
   CREATE TABLE quota_use (
     key_id TEXT NOT NULL,
     period TEXT NOT NULL,
     matched INTEGER NOT NULL,
     PRIMARY KEY (key_id, period)
   ) WITHOUT ROWID;`,
  // 2: key rotation, usage metering, the audit log and suppressions.
  `ALTER TABLE keys ADD COLUMN previous_hash TEXT;
   ALTER TABLE keys ADD COLUMN previous_expires_at TEXT;
   CREATE INDEX keys_previous_hash ON keys (previous_hash) WHERE previous_hash IS NOT NULL;
   CREATE TABLE key_usage (
     key_id TEXT NOT NULL,
     day TEXT NOT NULL,
     operation TEXT NOT NULL,
     requests INTEGER NOT NULL,
     matched INTEGER NOT NULL,
     not_found INTEGER NOT NULL,
     ambiguous INTEGER NOT NULL,
     rejected INTEGER NOT NULL,
     PRIMARY KEY (key_id, day, operation)
   ) WITHOUT ROWID;
   CREATE INDEX key_usage_day ON key_usage (day);
   CREATE TABLE audit_log (
     id INTEGER PRIMARY KEY,
     at TEXT NOT NULL,
     key_id TEXT NOT NULL,
     operation TEXT NOT NULL,
     params TEXT NOT NULL,
     matched TEXT NOT NULL,
     status INTEGER NOT NULL
   );
   CREATE INDEX audit_log_key ON audit_log (key_id, at);
   CREATE INDEX audit_log_at ON audit_log (at);
   CREATE TABLE audit_match (
     record_id TEXT NOT NULL,
     audit_id INTEGER NOT NULL,
     PRIMARY KEY (record_id, audit_id)
   ) WITHOUT ROWID;
   CREATE INDEX audit_match_audit ON audit_match (audit_id);
   CREATE TABLE suppressions (
     entity TEXT NOT NULL,
     hash TEXT NOT NULL,
     grp TEXT NOT NULL,
     PRIMARY KEY (entity, hash, grp)
   ) WITHOUT ROWID;
   CREATE INDEX suppressions_grp ON suppressions (grp);`,
  `${identifiersById('people', 'people_ident')}
   ${identifiersById('companies', 'companies_ident')}`,
  // 4: the record index of the audit log led by a bucket of consecutive entries (audit.ts), so
  // that new rows land in a few pages at its end rather than at random across the whole index.
  `CREATE TABLE audit_match_by_bucket (
     bucket INTEGER NOT NULL,
     record_id TEXT NOT NULL,
     audit_id INTEGER NOT NULL,
     PRIMARY KEY (bucket, record_id, audit_id)
   ) WITHOUT ROWID;
   INSERT INTO audit_match_by_bucket (bucket, record_id, audit_id)
     SELECT audit_id >> 14, record_id, audit_id FROM audit_match;
   DROP TABLE audit_match;
   ALTER TABLE audit_match_by_bucket RENAME TO audit_match;`,
  // 5: the serving index (store/serving) follows the records: every transaction that writes records
  // bumps the generation, and the index keeps the one it reflects; store_id tells stores apart.
  `CREATE TABLE serving_state (
     only INTEGER PRIMARY KEY CHECK (only = 1),
     store_id TEXT NOT NULL,
     generation INTEGER NOT NULL
   );
   INSERT INTO serving_state (only, store_id, generation)
     VALUES (1, lower(hex(randomblob(16))), 0);`,
  // 6: how far each accounting journal segment is folded in (src/accounting/journal.ts).
  `CREATE TABLE journal_folds (
     segment TEXT PRIMARY KEY,
     folded INTEGER NOT NULL
   ) WITHOUT ROWID;`,
  // 7: a bulk load into an empty entity under way (records first, identifier index built at the end),
  // and the process doing it, so that one that died half-way is finished by the next to open the store.
  `CREATE TABLE bulk_loads (
     entity TEXT PRIMARY KEY,
     writer TEXT NOT NULL
   ) WITHOUT ROWID;`,
  // 8: every token hash a key had before its current one, so that any rotated-out token answers as one
  // (src/auth/authenticate.ts), not as unknown; keys.previous_hash still says which one is in its grace.
  `CREATE TABLE retired_key_hashes (
     hash TEXT PRIMARY KEY,
     key_id TEXT NOT NULL
   ) WITHOUT ROWID;
   INSERT INTO retired_key_hashes (hash, key_id)
     SELECT previous_hash, id FROM keys WHERE previous_hash IS NOT NULL;
   DROP INDEX keys_previous_hash;`,
  hashedEmails(),
  // 10: search tables, their indexes and FTS5, filled from every stored record (search-schema.ts).
  SEARCH_MIGRATION,
  // 11: every person indexed by name at their current company (namesAtCompanyMigration).
  namesAtCompanyMigration(),
  // 12: the dictionary of positions and the position index, for position searches (search-schema.ts).
  POSITIONS_MIGRATION,
  // 13: the keys' table named as on PostgreSQL (keysNamedAsOnPostgres).
  keysNamedAsOnPostgres(),
  // 14: the change log (src/store/sqlite/changes.ts): an entry per event, numbered in commit order. Numbers
  // are never reused, even once every entry is pruned (AUTOINCREMENT), so a reader's cursor stays true.
  `CREATE TABLE IF NOT EXISTS change_log (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     at TEXT NOT NULL,
     type TEXT NOT NULL,
     data TEXT NOT NULL
   );`,
  // 15: a key's monthly allowance of search results, apart from its quota of matched lookups (null: none);
  // what it used is counted in quota_use under `search:<key id>` (limits/search-allowance.ts).
  keysWithSearchQuota(),
  // 16: requests, outcomes and latency buckets per minute, key and operation (src/store/sql/minutes.ts).
  minutesTable('TEXT', 'INTEGER', ' WITHOUT ROWID'),
  // 17: a key's watchlists and their entries (src/store/watchlists.ts): one entry per kind and record in a
  // watchlist, numbered in the order first added; `size` kept with the entries, so a listing counts none.
  `CREATE TABLE IF NOT EXISTS watchlists (
     id TEXT PRIMARY KEY,
     key_id TEXT NOT NULL,
     name TEXT NOT NULL,
     size INTEGER NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE INDEX IF NOT EXISTS watchlists_key ON watchlists (key_id, created_at);
   CREATE TABLE IF NOT EXISTS watchlist_entries (
     seq INTEGER PRIMARY KEY,
     watchlist_id TEXT NOT NULL,
     kind TEXT NOT NULL,
     record_id TEXT NOT NULL,
     ref TEXT,
     UNIQUE (watchlist_id, kind, record_id)
   );
   CREATE INDEX IF NOT EXISTS watchlist_entries_list ON watchlist_entries (watchlist_id, seq);`,
  // 18: webhook endpoints, the deliveries owed to them and the dispatcher's cursor (./webhooks.ts).
  WEBHOOKS_MIGRATION,
  // 19: list jobs (src/store/lists.ts): a key's uploaded lists matched in the background, their progress
  // committed with the charges of the rows it covers, and the lease of the process running each.
  `CREATE TABLE IF NOT EXISTS lists (
     id TEXT PRIMARY KEY,
     key_id TEXT NOT NULL,
     entity TEXT NOT NULL,
     format TEXT NOT NULL,
     options TEXT NOT NULL,
     mapping TEXT NOT NULL,
     status TEXT NOT NULL,
     rows INTEGER,
     processed INTEGER NOT NULL DEFAULT 0,
     matched INTEGER NOT NULL DEFAULT 0,
     not_found INTEGER NOT NULL DEFAULT 0,
     ambiguous INTEGER NOT NULL DEFAULT 0,
     invalid INTEGER NOT NULL DEFAULT 0,
     quota_exceeded INTEGER NOT NULL DEFAULT 0,
     output_bytes INTEGER NOT NULL DEFAULT 0,
     problem TEXT,
     created_at TEXT NOT NULL,
     started_at TEXT,
     finished_at TEXT,
     expires_at TEXT NOT NULL,
     lease_owner TEXT,
     lease_until TEXT
   );
   CREATE INDEX IF NOT EXISTS lists_key ON lists (key_id, created_at);
   CREATE INDEX IF NOT EXISTS lists_waiting ON lists (status, created_at);
   CREATE INDEX IF NOT EXISTS lists_expires ON lists (expires_at);`,
  // 20: the console's sessions (src/store/sessions.ts): only a hash of each session id.
  SESSIONS_TABLE,
  // 21: who holds each webhook delivery's lease (./webhooks.ts).
  WEBHOOK_CLAIMER_MIGRATION,
  // 22: the audit log in segments (./audit.ts): a row per fold's entries instead of one per entry, about an
  // eighth of the bytes. The entries there were go in runs of consecutive ids within one clock hour.
  `DROP INDEX audit_log_key;
   DROP INDEX audit_log_at;
   ALTER TABLE audit_log RENAME TO audit_log_rows;
   ALTER TABLE audit_match RENAME TO audit_match_rows;
   CREATE TABLE audit_log (
     id INTEGER PRIMARY KEY,
     first_seq INTEGER NOT NULL,
     first_at INTEGER NOT NULL,
     last_at INTEGER NOT NULL,
     entries INTEGER NOT NULL,
     body BLOB NOT NULL
   );
   CREATE INDEX audit_log_at ON audit_log (last_at, id, first_seq);
   CREATE TABLE audit_by_key (
     key_id TEXT NOT NULL,
     last_at INTEGER NOT NULL,
     segment INTEGER NOT NULL,
     PRIMARY KEY (key_id, last_at, segment)
   ) WITHOUT ROWID;
   CREATE TABLE audit_match (
     bucket INTEGER NOT NULL,
     record_hash INTEGER NOT NULL,
     segment INTEGER NOT NULL,
     PRIMARY KEY (bucket, record_hash, segment)
   ) WITHOUT ROWID;
   CREATE TABLE audit_rows_segment (
     id INTEGER PRIMARY KEY,
     segment INTEGER NOT NULL
   );
   INSERT INTO audit_rows_segment (id, segment)
     SELECT id, dense_rank() OVER (ORDER BY (id - 1) / ${SEGMENT_ENTRIES}, CAST(${AUDIT_MS}(at) / ${SEGMENT_SPAN_MS} AS INTEGER))
     FROM audit_log_rows;
   INSERT INTO audit_log (id, first_seq, first_at, last_at, entries, body)
     SELECT g.segment, min(a.id) - 1, CAST(min(${AUDIT_MS}(a.at)) AS INTEGER),
            CAST(max(${AUDIT_MS}(a.at)) AS INTEGER), count(*),
            ${AUDIT_PACK}(a.at, a.key_id, a.operation, a.params, a.matched, a.status ORDER BY a.id)
     FROM audit_log_rows a JOIN audit_rows_segment g ON g.id = a.id GROUP BY g.segment;
   INSERT OR IGNORE INTO audit_by_key (key_id, last_at, segment)
     SELECT a.key_id, s.last_at, s.id
     FROM audit_log_rows a JOIN audit_rows_segment g ON g.id = a.id JOIN audit_log s ON s.id = g.segment;
   INSERT OR IGNORE INTO audit_match (bucket, record_hash, segment)
     SELECT s.first_seq >> ${AUDIT_BUCKET_BITS}, ${RECORD_HASH}(m.record_id), s.id
     FROM audit_match_rows m JOIN audit_rows_segment g ON g.id = m.audit_id JOIN audit_log s ON s.id = g.segment;
   DROP TABLE audit_rows_segment;
   DROP TABLE audit_log_rows;
   DROP TABLE audit_match_rows;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Connection settings: WAL so readers never wait for the importer, a bounded cache and no mmap. */
export function applyPragmas(db: Database.Database, readonly: boolean): void {
  db.pragma('busy_timeout = 5000');
  // Negative cache_size is in KiB: 16 MiB per connection, whatever the size of the data set.
  db.pragma('cache_size = -16384');
  db.pragma('mmap_size = 0');
  db.pragma('temp_store = MEMORY');
  if (readonly) return;
  // Takes effect only on a new, empty database. 16 KiB pages take a quarter of the WAL writes and
  // checkpoint copies (each a system call) of 4 KiB ones for the same bytes: imports ran 25% faster.
  db.pragma('page_size = 16384');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
}

/** An entry's time as SQLite kept it as text, in milliseconds; one that is not a time, as the epoch's. */
const legacyMs = (at: unknown) => {
  const ms = Date.parse(String(at));
  return Number.isFinite(ms) ? ms : 0;
};

/** The SQL functions migrations call (SQLite has no SHA-256 of its own). */
export function registerMigrationFunctions(db: Database.Database): void {
  db.function(AUDIT_MS, { deterministic: true }, (at) => legacyMs(at));
  db.function(RECORD_HASH, { deterministic: true }, (id) => recordHash(String(id)));
  db.aggregate(AUDIT_PACK, {
    start: () => [] as unknown[][],
    varargs: true,
    step: (rows: unknown[][], ...row: unknown[]) => {
      rows.push(row);
    },
    result: (rows: unknown[][]) => {
      const entries = rows.map(([, key_id, operation, params, matched, status]) => ({
        key_id: String(key_id),
        operation: String(operation),
        params: String(params),
        matched: String(matched),
        status: Number(status),
      }));
      return packSegment(
        entries,
        rows.map(([at]) => legacyMs(at)),
      ).body;
    },
  });
  db.function(SHA256, { deterministic: true }, (value) => emailSha256(String(value)));
  db.function(NAMES_AT_COMPANY, { deterministic: true }, (body) => {
    const added = namesAtCompany(JSON.parse(String(body)) as Person);
    return JSON.stringify(added.map(({ kind, value }) => [IDENTIFIER_KIND_CODES[kind], value]));
  });
}

/** Brings the schema up to date; refuses a database written by a newer version of the service. */
export function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new Error(`database schema version ${current} is newer than this service (${SCHEMA_VERSION})`);
  }
  if (current < SCHEMA_VERSION) registerMigrationFunctions(db);
  for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
    db.transaction(() => {
      // Another process opening the file at the same time (a cluster's workers) may have applied it since
      // `current` was read; now that this one holds the write lock, it knows.
      if ((db.pragma('user_version', { simple: true }) as number) >= version) return;
      db.exec(MIGRATIONS[version - 1]!);
      db.pragma(`user_version = ${version}`);
    }).immediate();
  }
}

/** A read-only connection cannot migrate: it only checks that the schema is the one it expects. */
export function checkSchema(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current !== SCHEMA_VERSION) {
    throw new Error(
      `database schema version ${current} does not match this service (${SCHEMA_VERSION}); open it read-write once to migrate`,
    );
  }
}
