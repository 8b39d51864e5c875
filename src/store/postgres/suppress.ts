// Suppressions on PostgreSQL: records deleted and their identifiers' hashes remembered, in one transaction.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Entity } from '../store.js';
import { deleteRecords } from './identifiers.js';
import { inTransaction, query } from './pool.js';
import { ENTITY_TABLES } from './schema.js';

export async function suppress(
  primary: pg.Pool,
  entity: Entity,
  recordIds: string[],
  hashes: string[],
): Promise<number> {
  const t = ENTITY_TABLES[entity];
  return inTransaction(primary, async (client) => {
    const deleted = await deleteRecords(client, t, recordIds);
    await client.query({
      text: `INSERT INTO suppressions (entity, hash, grp)
             SELECT $1, hash, $3 FROM unnest($2::text[]) AS hash ON CONFLICT DO NOTHING`,
      values: [entity, hashes, randomUUID()],
    });
    return deleted;
  });
}

export async function unsuppress(primary: pg.Pool, entity: Entity, hash: string): Promise<number> {
  const { rowCount } = await query(primary, {
    text: `DELETE FROM suppressions WHERE entity = $1
           AND grp IN (SELECT grp FROM suppressions WHERE entity = $1 AND hash = $2)`,
    values: [entity, hash],
  });
  return rowCount ?? 0;
}

export async function suppressedHashes(primary: pg.Pool, entity: Entity): Promise<Set<string>> {
  const { rows } = await query<{ hash: string }>(primary, {
    text: 'SELECT DISTINCT hash FROM suppressions WHERE entity = $1',
    values: [entity],
  });
  return new Set(rows.map((row) => row.hash));
}
