// The sessions role on SQLite: the shared statements (../sql/sessions.ts), a session found without a promise.
import type Database from 'better-sqlite3';
import type { ConsoleSession, SessionStore } from '../sessions.js';
import { SESSION_STATEMENTS as SQL } from '../sql/sessions.js';
import { numbered } from './numbered.js';
import type { TurnSnapshot } from './snapshot.js';

type Params = [Record<number, unknown>];

export class SqliteSessions implements SessionStore {
  private readonly statements;

  constructor(
    db: Database.Database,
    private readonly snapshot: TurnSnapshot,
  ) {
    this.statements = {
      create: db.prepare<Params>(SQL.create),
      find: db.prepare<Params, ConsoleSession>(SQL.find),
      touch: db.prepare<Params>(SQL.touch),
      delete: db.prepare<Params>(SQL.delete),
      prune: db.prepare<Params>(SQL.prune),
    };
  }

  async createSession(hash: string, s: ConsoleSession): Promise<void> {
    this.snapshot.end();
    this.statements.create.run(numbered(hash, s.key_id, s.key_hash, s.created_at, s.last_seen_at));
  }

  findSession(hash: string): ConsoleSession | undefined {
    this.snapshot.enter();
    return this.statements.find.get(numbered(hash));
  }

  async touchSession(hash: string, at: Date): Promise<void> {
    this.snapshot.end();
    this.statements.touch.run(numbered(hash, at.toISOString()));
  }

  async deleteSession(hash: string): Promise<boolean> {
    this.snapshot.end();
    return this.statements.delete.run(numbered(hash)).changes > 0;
  }

  async pruneSessions(before: Date): Promise<number> {
    this.snapshot.end();
    return this.statements.prune.run(numbered(before.toISOString())).changes;
  }
}
