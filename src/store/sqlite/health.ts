// The health role on SQLite: the file answers a query, and its pages say its size.
import type Database from 'better-sqlite3';
import type { HealthStore } from '../health.js';

export class SqliteHealth implements HealthStore {
  private readonly select: Database.Statement<[], number>;
  private readonly size: Database.Statement<[], number>;

  constructor(db: Database.Database) {
    this.select = db.prepare<[], number>('SELECT 1').pluck();
    this.size = db
      .prepare<[], number>(
        'SELECT p.page_count * s.page_size FROM pragma_page_count() p, pragma_page_size() s',
      )
      .pluck();
  }

  async ping(): Promise<void> {
    this.select.get();
  }

  async sizeBytes(): Promise<number> {
    return this.size.get() ?? 0;
  }
}
