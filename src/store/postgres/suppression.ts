// The suppression role on PostgreSQL: records deleted as a record write (PostgresRecords.transaction), with
// the hashes that keep them out written in the same transaction.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Entity } from '../../vocabulary/entities.js';
import { POSTGRES } from '../sql/spelling.js';
import { suppressionStatements } from '../sql/suppression.js';
import { ENTITY_TABLES } from '../sql/tables.js';
import type { SuppressionStore } from '../suppression.js';
import { deleteRecords } from './identifiers.js';
import { query } from './pool.js';
import type { PostgresRecords } from './records.js';

const SQL = suppressionStatements(POSTGRES);

export class PostgresSuppression implements SuppressionStore {
  constructor(
    private readonly primary: pg.Pool,
    private readonly records: PostgresRecords,
  ) {}

  suppress(entity: Entity, recordIds: string[], hashes: string[]): Promise<number> {
    return this.records.transaction(async (client) => {
      const deleted = await deleteRecords(client, ENTITY_TABLES[entity], recordIds);
      const group = randomUUID();
      await client.query({
        text: SQL.add,
        values: [hashes.map(() => entity), hashes, hashes.map(() => group)],
      });
      return deleted;
    });
  }

  async unsuppress(entity: Entity, hash: string): Promise<number> {
    const { rowCount } = await query(this.primary, { text: SQL.removeGroups, values: [entity, hash] });
    return rowCount ?? 0;
  }

  async suppressedHashes(entity: Entity): Promise<Set<string>> {
    const { rows } = await query<{ hash: string }>(this.primary, { text: SQL.hashes, values: [entity] });
    return new Set(rows.map((row) => row.hash));
  }
}
