// The PostgreSQL store: lookups on a read pool (a replica when DATABASE_READ_URL is set), writes on the primary.
import type pg from 'pg';
import type { CompanyFilters, PeopleFilters, SearchPage, SearchQuery } from '../../search/query.js';
import type {
  AccountingBatch,
  ApiKey,
  AuditEntry,
  AuditFilter,
  Entity,
  IdentifierKind,
  KeyChanges,
  RecordToStore,
  ServedRecord,
  Store,
  StoredKey,
  StoredRecord,
  UpsertCounts,
  UsageFilter,
  UsageRow,
} from '../store.js';
import { toStoreError } from '../unavailable.js';
import * as audit from './audit.js';
import { deleteRecords } from './identifiers.js';
import * as journal from './journal.js';
import * as keys from './keys.js';
import { DatabaseNotMigratedError, schemaVersion } from './migrate.js';
import { LATEST_POSTGRES_VERSION } from './migrations.js';
import { createPool, inTransaction, query } from './pool.js';
import { ENTITY_TABLES, IDENTIFIER_KIND_CODES } from './schema.js';
import * as search from './search.js';
import * as suppressions from './suppress.js';
import { upsertBatch } from './upsert.js';
import * as usage from './usage.js';

export { DatabaseNotMigratedError, migratePostgres, postgresSchemaStatus } from './migrate.js';

export interface PostgresStoreOptions {
  /** The primary: every write, and every read when there is no readUrl. */
  url: string;
  /** A read replica for lookups (findIds, getRecord, exportBodies, findKeyByHash). */
  readUrl?: string;
  /** Connections per pool; 10 when not given. */
  poolSize?: number;
  /** Told when an idle connection fails (the server went away); the store recovers by itself. */
  onConnectionError?: (err: Error) => void;
}

const EXPORT_PAGE = 2_000;

export class PostgresStore implements Store {
  readonly backend = 'postgres';

  constructor(
    private readonly primary: pg.Pool,
    private readonly replica: pg.Pool,
  ) {}

  async findIds(entity: Entity, kind: IdentifierKind, value: string, limit: number): Promise<string[]> {
    const t = ENTITY_TABLES[entity];
    const { rows } = await query<{ id: string }>(this.replica, {
      name: `enrich_${entity}_find_ids`,
      text: `SELECT DISTINCT r.id FROM ${t.identifiers} i JOIN ${t.records} r ON r.rid = i.rid
             WHERE i.kind = $1 AND i.value = $2 ORDER BY r.id LIMIT $3`,
      values: [IDENTIFIER_KIND_CODES[kind], value, limit],
    });
    return rows.map((row) => row.id);
  }

  async getRecord(entity: Entity, id: string): Promise<StoredRecord | undefined> {
    const { rows } = await query<StoredRecord>(this.replica, {
      name: `enrich_${entity}_get_record`,
      text: `SELECT id, body, etag FROM ${ENTITY_TABLES[entity].records} WHERE id = $1`,
      values: [id],
    });
    return rows[0];
  }

  async findRecords(
    entity: Entity,
    kind: IdentifierKind | 'id',
    value: string,
    limit: number,
  ): Promise<ServedRecord[]> {
    const t = ENTITY_TABLES[entity];
    if (kind === 'id') {
      const record = limit > 0 ? await this.getRecord(entity, value) : undefined;
      return record ? [record] : [];
    }
    const { rows } = await query<ServedRecord>(this.replica, {
      name: `enrich_${entity}_find_records`,
      text: `SELECT r.id, r.etag, r.body FROM ${t.identifiers} i JOIN ${t.records} r ON r.rid = i.rid
             WHERE i.kind = $1 AND i.value = $2 ORDER BY r.id LIMIT $3`,
      values: [IDENTIFIER_KIND_CODES[kind], value, limit],
    });
    return rows;
  }

  /** From the read pool (a replica when DATABASE_READ_URL is set), as lookups. */
  searchPeople(q: SearchQuery<PeopleFilters>): Promise<SearchPage> {
    return search.searchPeople(this.replica, q);
  }

  searchCompanies(q: SearchQuery<CompanyFilters>): Promise<SearchPage> {
    return search.searchCompanies(this.replica, q);
  }

  async upsert(entity: Entity, records: RecordToStore[]): Promise<UpsertCounts> {
    if (records.length === 0) return { inserted: 0, updated: 0 };
    return inTransaction(this.primary, (client) => upsertBatch(client, entity, records));
  }

  async delete(entity: Entity, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return inTransaction(this.primary, (client) => deleteRecords(client, ENTITY_TABLES[entity], ids));
  }

  /** Pages through by id (keyset), so no connection is held between pages however slow the reader. */
  async *exportBodies(entity: Entity): AsyncIterable<string> {
    let after = '';
    for (;;) {
      const { rows } = await query<{ id: string; body: string }>(this.replica, {
        name: `enrich_${entity}_export_page`,
        text: `SELECT id, body FROM ${ENTITY_TABLES[entity].records} WHERE id > $1 ORDER BY id LIMIT $2`,
        values: [after, EXPORT_PAGE],
      });
      for (const row of rows) yield row.body;
      const last = rows.at(-1);
      if (!last || rows.length < EXPORT_PAGE) return;
      after = last.id;
    }
  }

  async count(entity: Entity): Promise<number> {
    const { rows } = await query<{ n: number }>(this.primary, {
      text: `SELECT count(*)::int AS n FROM ${ENTITY_TABLES[entity].records}`,
    });
    return rows[0]?.n ?? 0;
  }

  createKey(key: ApiKey): Promise<void> {
    return keys.createKey(this.primary, key);
  }

  findKeyByHash(hash: string): Promise<StoredKey | undefined> {
    return keys.findKeyByHash(this.replica, hash);
  }

  getKey(id: string): Promise<StoredKey | undefined> {
    return keys.getKey(this.primary, id);
  }

  listKeys(): Promise<StoredKey[]> {
    return keys.listKeys(this.primary);
  }

  rotateKey(id: string, hash: string, previousExpiresAt: Date): Promise<boolean> {
    return keys.rotateKey(this.primary, id, hash, previousExpiresAt);
  }

  updateKey(id: string, changes: KeyChanges): Promise<boolean> {
    return keys.updateKey(this.primary, id, changes);
  }

  revokeKey(id: string, at: Date): Promise<boolean> {
    return keys.revokeKey(this.primary, id, at);
  }

  quotaUsed(keyId: string, period: string): Promise<number> {
    return keys.quotaUsed(this.primary, keyId, period);
  }

  addQuotaUse(period: string, counts: Map<string, number>): Promise<void> {
    return keys.addQuotaUse(this.primary, period, counts);
  }

  addUsage(rows: UsageRow[]): Promise<void> {
    return usage.addUsage(this.primary, rows);
  }

  usage(filter: UsageFilter): Promise<UsageRow[]> {
    return usage.usage(this.primary, filter);
  }

  addAudit(entries: AuditEntry[]): Promise<void> {
    return audit.addAudit(this.primary, entries);
  }

  foldJournal(segment: string, from: number, to: number, batch: AccountingBatch): Promise<boolean> {
    return journal.foldJournal(this.primary, segment, from, to, batch);
  }

  journalOffset(segment: string): Promise<number> {
    return journal.journalOffset(this.primary, segment);
  }

  forgetJournal(segment: string): Promise<void> {
    return journal.forgetJournal(this.primary, segment);
  }

  audit(filter: AuditFilter): Promise<AuditEntry[]> {
    return audit.audit(this.primary, filter);
  }

  pruneAudit(before: Date): Promise<number> {
    return audit.pruneAudit(this.primary, before);
  }

  suppress(entity: Entity, recordIds: string[], hashes: string[]): Promise<number> {
    return suppressions.suppress(this.primary, entity, recordIds, hashes);
  }

  unsuppress(entity: Entity, hash: string): Promise<number> {
    return suppressions.unsuppress(this.primary, entity, hash);
  }

  suppressedHashes(entity: Entity): Promise<Set<string>> {
    return suppressions.suppressedHashes(this.primary, entity);
  }

  /** Ready only when both the primary (writes, keys, usage) and the read pool (lookups) answer. */
  async ping(): Promise<void> {
    const pools = this.replica === this.primary ? [this.primary] : [this.primary, this.replica];
    await Promise.all(pools.map((pool) => query(pool, { text: 'SELECT 1' })));
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.end(), this.replica === this.primary ? undefined : this.replica.end()]);
  }
}

/**
 * Connects to PostgreSQL and checks the schema is migrated.
 * @throws DatabaseNotMigratedError when the schema is behind this build; StoreUnavailableError when unreachable.
 * @example const store = await openPostgresStore({ url: process.env.DATABASE_URL! })
 */
export async function openPostgresStore(opts: PostgresStoreOptions): Promise<PostgresStore> {
  const poolOptions = { size: opts.poolSize, onError: opts.onConnectionError };
  const primary = createPool({ url: opts.url, ...poolOptions });
  const replica = opts.readUrl ? createPool({ url: opts.readUrl, ...poolOptions }) : primary;
  const store = new PostgresStore(primary, replica);
  try {
    const current = await schemaVersion(primary).catch((err) => Promise.reject(toStoreError(err)));
    if (current < LATEST_POSTGRES_VERSION)
      throw new DatabaseNotMigratedError(current, LATEST_POSTGRES_VERSION);
    return store;
  } catch (err) {
    await store.close();
    throw err;
  }
}
