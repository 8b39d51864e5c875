// The health role on SQLite: the file answers a query.
import type Database from 'better-sqlite3';
import type { HealthStore } from '../health.js';

export class SqliteHealth implements HealthStore {
  private readonly select: Database.Statement<[], number>;

  constructor(db: Database.Database) {
    this.select = db.prepare<[], number>('SELECT 1').pluck();
  }

  async ping(): Promise<void> {
    this.select.get();
  }
}
