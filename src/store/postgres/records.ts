// The records role on PostgreSQL: lookups on the read pool (a replica when DATABASE_READ_URL is set), writes
// on the primary, each one transaction.
import type pg from 'pg';
import type { RemovalReason } from '../../changes/events.js';
import type { Entity, IdentifierKind } from '../../vocabulary/entities.js';
import type { LocalIndex } from '../local/local-index.js';
import type { MaybePromise } from '../maybe-promise.js';
import {
  noneCounted,
  type RecordStore,
  type RecordToStore,
  type ServedRecord,
  type StoredRecord,
  type UpsertCounts,
} from '../records.js';
import { ENTITY_TABLES, IDENTIFIER_KIND_CODES } from '../sql/tables.js';
import { removeRecords } from './changes.js';
import { inTransaction, query } from './pool.js';
import { upsertBatch } from './upsert.js';

const EXPORT_PAGE = 2_000;
const ID_PAGE = 10_000;

export class PostgresRecords implements RecordStore {
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

  private local: LocalIndex | undefined;

  /**
   * From now on lookups read the local index while it is in service (no query), and PostgreSQL while it
   * is being built, or for an identifier too many records carry to list.
   */
  serveFrom(index: LocalIndex): void {
    this.local = index;
  }

  findRecords(
    entity: Entity,
    kind: IdentifierKind | 'id',
    value: string,
    limit: number,
  ): MaybePromise<ServedRecord[]> {
    const code = kind === 'id' ? 0 : IDENTIFIER_KIND_CODES[kind];
    return (
      this.local?.findRecords(entity, kind, value, limit, code) ??
      this.findInStore(entity, kind, value, limit)
    );
  }

  private async findInStore(
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

  /**
   * A write of records in one transaction on the primary: every record write runs here, and what must be
   * written with the records (search rows, a suppression's hashes) is written in it.
   */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.primary, work);
  }

  async upsert(entity: Entity, records: RecordToStore[]): Promise<UpsertCounts> {
    if (records.length === 0) return noneCounted();
    return this.transaction((client) => upsertBatch(client, entity, records));
  }

  async delete(entity: Entity, ids: string[], reason: RemovalReason = 'deleted'): Promise<number> {
    if (ids.length === 0) return 0;
    return this.transaction((client) => removeRecords(client, entity, ids, reason));
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

  /** On the primary: a snapshot refresh removes what this lists, so it must be current. */
  async *exportIds(entity: Entity): AsyncIterable<string[]> {
    for (let after = ''; ; ) {
      const { rows } = await query<{ id: string }>(this.primary, {
        name: `enrich_${entity}_id_page`,
        text: `SELECT id FROM ${ENTITY_TABLES[entity].records} WHERE id > $1 ORDER BY id LIMIT $2`,
        values: [after, ID_PAGE],
      });
      if (rows.length > 0) yield rows.map((row) => row.id);
      if (rows.length < ID_PAGE) return;
      after = rows.at(-1)!.id;
    }
  }

  async *exportEtags(entity: Entity): AsyncIterable<string[]> {
    for (let after = ''; ; ) {
      const { rows } = await query<{ id: string; etag: string }>(this.primary, {
        name: `enrich_${entity}_etag_page`,
        text: `SELECT id, etag FROM ${ENTITY_TABLES[entity].records} WHERE id > $1 ORDER BY id LIMIT $2`,
        values: [after, ID_PAGE],
      });
      if (rows.length > 0) yield rows.map((row) => row.etag);
      if (rows.length < ID_PAGE) return;
      after = rows.at(-1)!.id;
    }
  }

  async count(entity: Entity): Promise<number> {
    const { rows } = await query<{ n: number }>(this.primary, {
      text: `SELECT count(*)::int AS n FROM ${ENTITY_TABLES[entity].records}`,
    });
    return rows[0]?.n ?? 0;
  }
}
