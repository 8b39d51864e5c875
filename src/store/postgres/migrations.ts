// PostgreSQL schema migrations, embedded as strings so the compiled service carries them (tsc copies no .sql).

import type pg from 'pg';
import { namesAtCompany } from '../../identifiers/record.js';
import type { Person } from '../../schemas/person.js';
import type { AuditRow } from '../accounting.js';
import { minutesTable } from '../sql/minutes.js';
import { SESSIONS_TABLE } from '../sql/sessions.js';
import { IDENTIFIER_KIND_CODES } from '../sql/tables.js';
import { addAuditRows } from './audit.js';
import { CHANGES_CHANNEL } from './changes.js';
import { fillSearchRows } from './search-writes.js';
import { WEBHOOKS_MIGRATION } from './webhooks.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Work SQL cannot do, run after `sql` in the same transaction (rows derived by the service's code). */
  fill?: (client: pg.ClientBase) => Promise<void>;
}

// Ids sort with COLLATE "C" so "id order" is byte order, as on SQLite. Bodies are text, not jsonb:
// a record is served as the exact bytes it was imported with.
const recordTables = (records: string, identifiers: string) => `
CREATE TABLE ${records} (
  rid bigserial PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  etag text NOT NULL,
  body text NOT NULL
);
CREATE TABLE ${identifiers} (
  kind smallint NOT NULL,
  value text COLLATE "C" NOT NULL,
  rid bigint NOT NULL,
  PRIMARY KEY (kind, value, rid)
);
CREATE INDEX ${identifiers}_rid ON ${identifiers} (rid);
`;

// Each record lists its identifiers ('<kind code>:<value>', sorted), so replacing or deleting them needs no
// index on rid: two index insertions per identifier became one, the costliest part of an import. Values are
// found through a hash index (equality is all lookups need); the lists on the records keep rows unique.
const identifiersOnRecords = (records: string, identifiers: string) => `
ALTER TABLE ${records} ADD COLUMN idents text[] COLLATE "C" NOT NULL DEFAULT '{}';
UPDATE ${records} r SET idents = i.keys
  FROM (SELECT rid, array_agg(kind || ':' || value ORDER BY kind || ':' || value COLLATE "C") AS keys
        FROM ${identifiers} GROUP BY rid) i
  WHERE r.rid = i.rid;
DROP INDEX ${identifiers}_rid;
ALTER TABLE ${identifiers} DROP CONSTRAINT ${identifiers}_pkey;
CREATE INDEX ${identifiers}_value ON ${identifiers} USING hash (value);
`;

// Every stored e-mail address indexed by its hash too (kind 2 → 6, 3 → 7): the lower-case hex SHA-256 of its
// UTF-8 bytes, as src/identifiers/email-hash.ts hashes; each record's sorted list gains the same keys.
const sha256Hex = (text: string) => `encode(sha256(convert_to(${text}, 'UTF8')), 'hex')`;
const hashedEmails = () => {
  const { work_email: work, personal_email: personal } = IDENTIFIER_KIND_CODES;
  const { work_email_sha256: workHash, personal_email_sha256: personalHash } = IDENTIFIER_KIND_CODES;
  return `
INSERT INTO people_ident (kind, value, rid)
  SELECT CASE kind WHEN ${work} THEN ${workHash} ELSE ${personalHash} END, ${sha256Hex('value')}, rid
  FROM people_ident WHERE kind IN (${work}, ${personal});
UPDATE people SET idents = ARRAY(
  SELECT key FROM (
    SELECT unnest(idents) AS key
    UNION ALL
    SELECT CASE split_part(e, ':', 1) WHEN '${work}' THEN '${workHash}:' ELSE '${personalHash}:' END
           || ${sha256Hex("substr(e, strpos(e, ':') + 1)")}
    FROM unnest(idents) AS e WHERE split_part(e, ':', 1) IN ('${work}', '${personal}')
  ) keys ORDER BY key COLLATE "C")
WHERE EXISTS (SELECT 1 FROM unnest(idents) AS e WHERE split_part(e, ':', 1) IN ('${work}', '${personal}'));
`;
};

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'init',
    sql: `
${recordTables('people', 'people_ident')}
${recordTables('companies', 'companies_ident')}
-- Dates are kept as the ISO-8601 text they were given, so a key reads back exactly as written.
CREATE TABLE api_keys (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY, -- creation order, for listing keys created in the same instant
  name text NOT NULL,
  hash text NOT NULL UNIQUE,
  scopes text[] NOT NULL,
  rate double precision NOT NULL,
  quota bigint,
  created_at text NOT NULL,
  expires_at text,
  revoked_at text
);
CREATE TABLE quota_use (
  key_id text COLLATE "C" NOT NULL,
  period text NOT NULL,
  matched bigint NOT NULL,
  PRIMARY KEY (key_id, period)
);
`,
  },
  {
    version: 2,
    name: 'keys rotation, usage, audit, suppressions',
    sql: `
ALTER TABLE api_keys ADD COLUMN previous_hash text, ADD COLUMN previous_expires_at text;
CREATE INDEX api_keys_previous_hash ON api_keys (previous_hash) WHERE previous_hash IS NOT NULL;
CREATE TABLE key_usage (
  key_id text COLLATE "C" NOT NULL,
  day text NOT NULL,
  operation text NOT NULL,
  requests bigint NOT NULL,
  matched bigint NOT NULL,
  not_found bigint NOT NULL,
  ambiguous bigint NOT NULL,
  rejected bigint NOT NULL,
  PRIMARY KEY (key_id, day, operation)
);
CREATE INDEX key_usage_day ON key_usage (day);
-- Parameter names and record ids never hold a comma: each list is one comma-joined text, as on SQLite.
CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL,
  key_id text COLLATE "C" NOT NULL,
  operation text NOT NULL,
  params text NOT NULL,
  matched text NOT NULL,
  status smallint NOT NULL
);
CREATE INDEX audit_log_key ON audit_log (key_id, at);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE TABLE audit_match (
  record_id text COLLATE "C" NOT NULL,
  audit_id bigint NOT NULL REFERENCES audit_log (id) ON DELETE CASCADE,
  PRIMARY KEY (record_id, audit_id)
);
CREATE INDEX audit_match_audit ON audit_match (audit_id);
CREATE TABLE suppressions (
  entity text NOT NULL,
  hash text NOT NULL,
  grp text NOT NULL,
  PRIMARY KEY (entity, hash, grp)
);
CREATE INDEX suppressions_grp ON suppressions (grp);
`,
  },
  {
    version: 3,
    name: 'identifiers listed on their record, hash index on values',
    sql: `
${identifiersOnRecords('people', 'people_ident')}
${identifiersOnRecords('companies', 'companies_ident')}
`,
  },
  {
    version: 4,
    name: 'lz4 for record bodies',
    // Bodies near 2 KB cross the TOAST threshold, and pglz compression was the costliest step of an import.
    // A server built without lz4 keeps the default.
    sql: `
DO $$
BEGIN
  ALTER TABLE people ALTER COLUMN body SET COMPRESSION lz4;
  ALTER TABLE companies ALTER COLUMN body SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
  RAISE NOTICE 'lz4 is not available: record bodies keep the default compression';
END $$;
`,
  },
  {
    version: 5,
    name: 'accounting journal offsets',
    sql: `
CREATE TABLE journal_folds (
  segment text COLLATE "C" PRIMARY KEY,
  folded bigint NOT NULL
);
`,
  },
  {
    version: 6,
    name: 'retired key token hashes',
    // Every token hash a key had before its current one, so that any rotated-out token answers as one
    // (src/auth/authenticate.ts), not as unknown; api_keys.previous_hash still says which is in its grace.
    sql: `
CREATE TABLE retired_key_hashes (
  hash text COLLATE "C" PRIMARY KEY,
  key_id text COLLATE "C" NOT NULL
);
INSERT INTO retired_key_hashes (hash, key_id)
  SELECT previous_hash, id FROM api_keys WHERE previous_hash IS NOT NULL;
`,
  },
  { version: 7, name: 'hashed e-mail identifiers', sql: hashedEmails() },
  {
    version: 8,
    name: 'search tables',
    // Each record's derived search columns (src/store/search-facts.ts), keyed by its rid and deleted with it;
    // B-tree indexes for searches in id order, trigram indexes for words (position, q). Words are kept
    // folded ('  head of sales'), so LIKE '% hea%' is "a word starting hea" exactly, as on SQLite.
    sql: `
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE people_search (
  rid bigint PRIMARY KEY REFERENCES people (rid) ON DELETE CASCADE,
  id text COLLATE "C" NOT NULL,
  company_id text COLLATE "C",
  seniority smallint,
  department smallint,
  location_country text COLLATE "C",
  country text COLLATE "C",
  state text COLLATE "C",
  position text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  headline text COLLATE "C" NOT NULL,
  skills text COLLATE "C" NOT NULL,
  skill_keys text COLLATE "C" NOT NULL,
  location text COLLATE "C" NOT NULL,
  text text COLLATE "C" GENERATED ALWAYS AS (name || position || headline || skills) STORED
);
CREATE TABLE companies_search (
  rid bigint PRIMARY KEY REFERENCES companies (rid) ON DELETE CASCADE,
  id text COLLATE "C" NOT NULL,
  country text COLLATE "C" NOT NULL,
  states text COLLATE "C" NOT NULL,
  industries text COLLATE "C" NOT NULL,
  technologies text COLLATE "C" NOT NULL,
  size text COLLATE "C" NOT NULL,
  revenue text COLLATE "C" NOT NULL,
  year_founded int,
  name text COLLATE "C" NOT NULL,
  description text COLLATE "C" NOT NULL,
  keywords text COLLATE "C" NOT NULL,
  text text COLLATE "C" GENERATED ALWAYS AS (name || description || keywords) STORED
);
CREATE UNIQUE INDEX companies_search_id ON companies_search (id);
CREATE INDEX companies_search_text ON companies_search USING gin (text gin_trgm_ops);
CREATE UNIQUE INDEX people_search_id ON people_search (id);
CREATE INDEX people_search_company ON people_search (company_id, id);
CREATE INDEX people_search_role ON people_search (seniority, department, country, id);
CREATE INDEX people_search_country ON people_search (country, id);
CREATE INDEX people_search_state ON people_search (state, id);
CREATE INDEX people_search_position ON people_search USING gin (position gin_trgm_ops);
CREATE INDEX people_search_text ON people_search USING gin (text gin_trgm_ops);
`,
    fill: async (client) => {
      await fillSearchRows(client, 'companies');
      await fillSearchRows(client, 'people');
    },
  },
  {
    version: 9,
    name: 'names at companies',
    sql: 'SELECT 1',
    fill: fillNamesAtCompany,
  },
  {
    version: 10,
    name: 'dictionary of positions',
    // Position searches match words against each distinct position (a few thousand texts where people
    // number millions), then find, count and sort the people holding the matches by a B-tree on
    // (position, id) holding their rid, reading no person's row: the trigram index on every person's
    // position had each match's row read again to count it. Rows are added as people are written and
    // never removed (see search-writes.ts).
    sql: `
CREATE TABLE people_positions (position text COLLATE "C" NOT NULL);
INSERT INTO people_positions (position)
  SELECT DISTINCT position FROM people_search WHERE position <> '' ORDER BY position;
CREATE INDEX people_positions_position ON people_positions (position);
CREATE INDEX people_positions_words ON people_positions USING gin (position gin_trgm_ops);
DROP INDEX people_search_position;
CREATE INDEX people_search_position ON people_search (position, id) INCLUDE (rid);
ANALYZE people_positions;
ANALYZE people_search;
`,
  },
  {
    version: 11,
    name: 'change log',
    // An entry per change event (src/store/postgres/changes.ts), numbered in commit order under an advisory
    // lock; a bigserial never reuses a number, even once every entry is pruned.
    sql: `
CREATE TABLE change_log (
  seq bigserial PRIMARY KEY,
  at timestamptz NOT NULL,
  type text COLLATE "C" NOT NULL,
  data text NOT NULL
);
`,
  },
  {
    version: 12,
    name: 'search allowance',
    // A key's monthly allowance of search results, apart from its quota of matched lookups (null: none);
    // what it used is counted in quota_use under `search:<key id>` (limits/search-allowance.ts).
    sql: 'ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS search_quota bigint;',
  },
  {
    version: 13,
    name: 'per-minute counts',
    sql: minutesTable('text COLLATE "C"', 'bigint'),
  },
  {
    version: 14,
    name: 'watchlists',
    // A key's watchlists and their entries (src/store/watchlists.ts): one entry per kind and record in a
    // watchlist, numbered in the order first added; `size` kept with the entries, so a listing counts none.
    sql: `
CREATE TABLE watchlists (
  id text COLLATE "C" PRIMARY KEY,
  key_id text COLLATE "C" NOT NULL,
  name text NOT NULL,
  size bigint NOT NULL,
  created_at text NOT NULL
);
CREATE INDEX watchlists_key ON watchlists (key_id, created_at);
CREATE TABLE watchlist_entries (
  seq bigserial PRIMARY KEY,
  watchlist_id text COLLATE "C" NOT NULL,
  kind text NOT NULL,
  record_id text COLLATE "C" NOT NULL,
  ref text,
  UNIQUE (watchlist_id, kind, record_id)
);
CREATE INDEX watchlist_entries_list ON watchlist_entries (watchlist_id, seq);
`,
  },
  { version: 15, name: 'webhook endpoints, deliveries and the dispatch cursor', sql: WEBHOOKS_MIGRATION },
  {
    version: 16,
    name: 'list jobs',
    // A key's uploaded lists matched in the background (src/store/lists.ts): their progress committed with
    // the charges of the rows it covers, and the lease of the process running each.
    sql: `
CREATE TABLE lists (
  id text COLLATE "C" PRIMARY KEY,
  key_id text COLLATE "C" NOT NULL,
  entity text NOT NULL,
  format text NOT NULL,
  options text NOT NULL,
  mapping text NOT NULL,
  status text NOT NULL,
  rows bigint,
  processed bigint NOT NULL DEFAULT 0,
  matched bigint NOT NULL DEFAULT 0,
  not_found bigint NOT NULL DEFAULT 0,
  ambiguous bigint NOT NULL DEFAULT 0,
  invalid bigint NOT NULL DEFAULT 0,
  quota_exceeded bigint NOT NULL DEFAULT 0,
  output_bytes bigint NOT NULL DEFAULT 0,
  problem text,
  created_at text NOT NULL,
  started_at text,
  finished_at text,
  expires_at text NOT NULL,
  lease_owner text,
  lease_until text
);
CREATE INDEX lists_key ON lists (key_id, created_at);
CREATE INDEX lists_waiting ON lists (status, created_at);
CREATE INDEX lists_expires ON lists (expires_at);
`,
  },
  { version: 17, name: "the console's sessions", sql: SESSIONS_TABLE },
  {
    version: 18,
    name: "the store's id and keys version, for servers' local indexes",
    // A server's local index (src/store/local) is of one store: its id tells another database's apart. Every
    // write of the keys tables bumps keys_version and wakes the followers on the change log's channel.
    sql: `
CREATE TABLE store_meta (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  store_id text NOT NULL,
  keys_version bigint NOT NULL DEFAULT 0
);
INSERT INTO store_meta (store_id) VALUES (md5(random()::text || clock_timestamp()::text || pg_backend_pid()));
CREATE FUNCTION enrich_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE store_meta SET keys_version = keys_version + 1;
  PERFORM pg_notify('${CHANGES_CHANNEL}', '');
  RETURN NULL;
END $$;
CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION enrich_keys_changed();
CREATE TRIGGER retired_key_hashes_changed AFTER INSERT OR UPDATE OR DELETE ON retired_key_hashes
  FOR EACH STATEMENT EXECUTE FUNCTION enrich_keys_changed();
`,
  },
  {
    version: 19,
    name: 'audit index rows without a foreign key',
    // Its check cost each index row a lookup and a row lock of its entry (a third of PostgreSQL's time per
    // audited lookup); the fold writes both in one statement, and pruning deletes both (pruneAudit).
    sql: 'ALTER TABLE audit_match DROP CONSTRAINT audit_match_audit_id_fkey;',
  },
  {
    version: 20,
    name: 'who holds each webhook delivery lease',
    // One server at a time holds an endpoint's deliveries and attempts them from a queue of its own.
    sql: 'ALTER TABLE webhook_deliveries ADD COLUMN claimer text;',
  },
  {
    version: 21,
    name: 'the audit log in segments',
    // A row per fold's entries instead of two per entry and their five index rows (../sql/audit-segments.ts),
    // its records' hashes in a GIN index (a key and a compressed list of rows each, where a table of its own
    // cost a 52-byte heap row and a 36-byte index entry per record); the fill packs the rows there were.
    sql: `
ALTER TABLE audit_log RENAME TO audit_log_rows;
ALTER TABLE audit_log_rows RENAME CONSTRAINT audit_log_pkey TO audit_log_rows_pkey;
ALTER SEQUENCE audit_log_id_seq RENAME TO audit_log_rows_id_seq;
ALTER TABLE audit_match RENAME TO audit_match_rows;
ALTER TABLE audit_match_rows RENAME CONSTRAINT audit_match_pkey TO audit_match_rows_pkey;
DROP INDEX audit_log_key;
DROP INDEX audit_log_at;
DROP INDEX audit_match_audit;
CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  first_at bigint NOT NULL,
  last_at bigint NOT NULL,
  entries bigint NOT NULL,
  record_hashes integer[] NOT NULL,
  body bytea NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (last_at, id);
CREATE INDEX audit_log_records ON audit_log USING gin (record_hashes);
CREATE TABLE audit_by_key (
  key_id text COLLATE "C" NOT NULL,
  last_at bigint NOT NULL,
  segment bigint NOT NULL,
  PRIMARY KEY (key_id, last_at, segment)
);
`,
    fill: packAuditRows,
  },
];

/** Audit rows read per round of the segments' fill. */
const AUDIT_PAGE = 10_000;

/** Every audit entry the log held as a row, packed into segments in id order; the row tables then go. */
async function packAuditRows(client: pg.ClientBase): Promise<void> {
  for (let after = 0; ; ) {
    const { rows } = await client.query<Omit<AuditRow, 'atMs'> & { id: string; at: Date }>({
      text: `SELECT id, at, key_id, operation, params, matched, status FROM audit_log_rows
             WHERE id > $1 ORDER BY id LIMIT ${AUDIT_PAGE}`,
      values: [after],
    });
    if (rows.length > 0) {
      await addAuditRows(
        client as pg.PoolClient,
        rows.map(({ at, key_id, operation, params, matched, status }) => ({
          atMs: at.getTime(),
          key_id,
          operation,
          params,
          matched,
          status,
        })),
      );
    }
    if (rows.length < AUDIT_PAGE) break;
    after = Number(rows.at(-1)!.id);
  }
  await client.query('DROP TABLE audit_log_rows; DROP TABLE audit_match_rows;');
}

/** People read per round of the name-at-company fill. */
const NAMES_PAGE = 5_000;

/**
 * Every stored person indexed by their last name at their current company (kinds 8–11), as
 * personIdentifiers lists them for a record imported now; each record's sorted list gains the same keys.
 */
async function fillNamesAtCompany(client: pg.ClientBase): Promise<void> {
  for (let after = 0; ; ) {
    const { rows } = await client.query<{ rid: string; body: string; idents: string[] }>({
      text: `SELECT rid, body, idents FROM people WHERE rid > $1 ORDER BY rid LIMIT ${NAMES_PAGE}`,
      values: [after],
    });
    const updated: { rids: string[]; lists: string[] } = { rids: [], lists: [] };
    const index: { kinds: number[]; values: string[]; rids: string[] } = { kinds: [], values: [], rids: [] };
    for (const row of rows) {
      const added = namesAtCompany(JSON.parse(row.body) as Person);
      if (added.length === 0) continue;
      const keys = new Set(row.idents);
      for (const { kind, value } of added) {
        const key = `${IDENTIFIER_KIND_CODES[kind]}:${value}`;
        if (keys.has(key)) continue;
        keys.add(key);
        index.kinds.push(IDENTIFIER_KIND_CODES[kind]);
        index.values.push(value);
        index.rids.push(row.rid);
      }
      updated.rids.push(row.rid);
      // Sorted as identifierKeys sorts an imported record's list.
      updated.lists.push(JSON.stringify([...keys].sort()));
    }
    if (updated.rids.length > 0) {
      await client.query({
        text: `UPDATE people p SET idents = ARRAY(SELECT json_array_elements_text(u.list))
               FROM unnest($1::bigint[], $2::json[]) AS u(rid, list) WHERE p.rid = u.rid`,
        values: [updated.rids, updated.lists],
      });
      await client.query({
        text: `INSERT INTO people_ident (kind, value, rid)
               SELECT * FROM unnest($1::smallint[], $2::text[], $3::bigint[])`,
        values: [index.kinds, index.values, index.rids],
      });
    }
    if (rows.length < NAMES_PAGE) return;
    after = Number(rows.at(-1)!.rid);
  }
}

export const LATEST_POSTGRES_VERSION = Math.max(...POSTGRES_MIGRATIONS.map((m) => m.version));
