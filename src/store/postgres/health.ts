// The health role on PostgreSQL: both pools answer.
import type pg from 'pg';
import type { HealthStore } from '../health.js';
import { query } from './pool.js';

export class PostgresHealth implements HealthStore {
  constructor(
    private readonly primary: pg.Pool,
    private readonly replica: pg.Pool,
  ) {}

  /** Ready only when both the primary (writes, keys, usage) and the read pool (lookups) answer. */
  async ping(): Promise<void> {
    const pools = this.replica === this.primary ? [this.primary] : [this.primary, this.replica];
    await Promise.all(pools.map((pool) => query(pool, { text: 'SELECT 1' })));
  }

  async sizeBytes(): Promise<number> {
    const { rows } = await query<{ bytes: string }>(this.primary, {
      text: 'SELECT pg_database_size(current_database()) AS bytes',
    });
    return Number(rows[0]!.bytes);
  }
}
