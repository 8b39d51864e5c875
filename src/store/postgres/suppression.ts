// The suppression role on PostgreSQL: records deleted as a record write (PostgresRecords.transaction), with
// the hashes that keep them out written in the same transaction.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Entity } from '../../vocabulary/entities.js';
import { POSTGRES } from '../sql/spelling.js';
import { suppressionStatements } from '../sql/suppression.js';
import type { SuppressionStore } from '../suppression.js';
import { removeRecords } from './changes.js';
import { query } from './pool.js';
import type { PostgresRecords } from './records.js';

const SQL = suppressionStatements(POSTGRES);

export class PostgresSuppression implements SuppressionStore {
  constructor(
    private readonly primary: pg.Pool,
    private readonly records: PostgresRecords,
  ) {}

  suppress(entity: Entity, recordIds: string[], hashes: string[]): Promise<number> {
    const group = randomUUID();
    return this.records.transaction((client) =>
      removeRecords(client, entity, recordIds, 'suppressed', async () => {
        await client.query({
          text: SQL.add,
          values: [hashes.map(() => entity), hashes, hashes.map(() => group)],
        });
      }),
    );
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
