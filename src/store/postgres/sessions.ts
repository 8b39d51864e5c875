// The sessions role on PostgreSQL: the shared statements (../sql/sessions.ts) on the primary, so that a
// sign-out is seen by the next request of any server.
import type pg from 'pg';
import type { ConsoleSession, SessionStore } from '../sessions.js';
import { SESSION_STATEMENTS as SQL } from '../sql/sessions.js';
import { query } from './pool.js';

export class PostgresSessions implements SessionStore {
  constructor(private readonly primary: pg.Pool) {}

  async createSession(hash: string, s: ConsoleSession): Promise<void> {
    await query(this.primary, {
      text: SQL.create,
      values: [hash, s.key_id, s.key_hash, s.created_at, s.last_seen_at],
    });
  }

  async findSession(hash: string): Promise<ConsoleSession | undefined> {
    const { rows } = await query<ConsoleSession>(this.primary, { text: SQL.find, values: [hash] });
    return rows[0];
  }

  async touchSession(hash: string, at: Date): Promise<void> {
    await query(this.primary, { text: SQL.touch, values: [hash, at.toISOString()] });
  }

  async deleteSession(hash: string): Promise<boolean> {
    const { rowCount } = await query(this.primary, { text: SQL.delete, values: [hash] });
    return (rowCount ?? 0) > 0;
  }

  async pruneSessions(before: Date): Promise<number> {
    const { rowCount } = await query(this.primary, { text: SQL.prune, values: [before.toISOString()] });
    return rowCount ?? 0;
  }
}
