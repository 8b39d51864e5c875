// The watchlists role on SQLite: the shared statements (../sql/watchlists.ts); entries added a row at a time
// in one transaction, and the ids a page of events names asked about as JSON arrays.
import type Database from 'better-sqlite3';
import { SQLITE } from '../sql/spelling.js';
import { watchedOf, watchlistStatements } from '../sql/watchlists.js';
import type { NewWatchEntry, WatchEntry, Watched, Watchlist, WatchlistStore } from '../watchlists.js';
import { numbered } from './numbered.js';
import type { TurnSnapshot } from './snapshot.js';

const SQL = watchlistStatements(SQLITE);

type Params = [Record<number, unknown>];

function prepare(db: Database.Database) {
  return {
    create: db.prepare<Params>(SQL.create),
    get: db.prepare<Params, Watchlist>(SQL.get),
    list: db.prepare<Params, Watchlist>(SQL.list),
    delete: db.prepare<Params>(SQL.delete),
    deleteEntries: db.prepare<Params>(SQL.deleteEntries),
    grow: db.prepare<Params>(SQL.grow),
    entries: db.prepare<Params, WatchEntry>(SQL.entries),
    deleteEntry: db.prepare<Params>(SQL.deleteEntry),
    exists: db.prepare<Params, number>('SELECT 1 FROM watchlists WHERE id = $1').pluck(),
    size: db.prepare<Params, number>('SELECT size FROM watchlists WHERE id = $1').pluck(),
    insert: db.prepare<Params>(
      `INSERT INTO watchlist_entries (watchlist_id, kind, record_id, ref) VALUES ($1, $2, $3, $4)
       ON CONFLICT (watchlist_id, kind, record_id) DO NOTHING`,
    ),
    reref: db.prepare<Params>(
      'UPDATE watchlist_entries SET ref = $4 WHERE watchlist_id = $1 AND kind = $2 AND record_id = $3',
    ),
    watched: db.prepare<Params, { kind: string; record_id: string }>(
      `SELECT kind, record_id FROM watchlist_entries
       WHERE watchlist_id = $1 AND kind = 'person' AND record_id IN (SELECT value FROM json_each($2))
       UNION ALL
       SELECT kind, record_id FROM watchlist_entries
       WHERE watchlist_id = $1 AND kind = 'company' AND record_id IN (SELECT value FROM json_each($3))`,
    ),
  };
}

export class SqliteWatchlists implements WatchlistStore {
  private readonly statements: ReturnType<typeof prepare>;
  private readonly addOnce: (watchlistId: string, entries: readonly NewWatchEntry[]) => number;
  private readonly deleteOnce: (keyId: string, id: string) => boolean;
  private readonly deleteEntryOnce: (watchlistId: string, seq: number) => boolean;

  constructor(
    db: Database.Database,
    private readonly snapshot: TurnSnapshot,
  ) {
    const s = prepare(db);
    this.statements = s;
    this.addOnce = db.transaction((watchlistId: string, entries: readonly NewWatchEntry[]) => {
      if (s.exists.get(numbered(watchlistId)) === undefined) return 0;
      let added = 0;
      for (const { kind, record_id, ref } of entries) {
        const values = numbered(watchlistId, kind, record_id, ref);
        if (s.insert.run(values).changes > 0) added++;
        else s.reref.run(values);
      }
      if (added > 0) s.grow.run(numbered(watchlistId, added));
      return s.size.get(numbered(watchlistId))!;
    });
    this.deleteOnce = db.transaction((keyId: string, id: string) => {
      if (s.delete.run(numbered(keyId, id)).changes === 0) return false;
      s.deleteEntries.run(numbered(id));
      return true;
    });
    this.deleteEntryOnce = db.transaction((watchlistId: string, seq: number) => {
      if (s.deleteEntry.run(numbered(watchlistId, seq)).changes === 0) return false;
      s.grow.run(numbered(watchlistId, -1));
      return true;
    });
  }

  /** A write: this turn's read snapshot ended first. */
  private write<T>(write: () => T): T {
    this.snapshot.end();
    return write();
  }

  async createWatchlist({ id, key_id, name, created_at }: Omit<Watchlist, 'size'>): Promise<void> {
    this.write(() => this.statements.create.run(numbered(id, key_id, name, created_at)));
  }

  async getWatchlist(keyId: string, id: string): Promise<Watchlist | undefined> {
    return this.statements.get.get(numbered(keyId, id));
  }

  async listWatchlists(keyId: string): Promise<Watchlist[]> {
    return this.statements.list.all(numbered(keyId));
  }

  async deleteWatchlist(keyId: string, id: string): Promise<boolean> {
    return this.write(() => this.deleteOnce(keyId, id));
  }

  async addWatchEntries(watchlistId: string, entries: readonly NewWatchEntry[]): Promise<number> {
    return this.write(() => this.addOnce(watchlistId, entries));
  }

  async listWatchEntries(watchlistId: string, after: number, limit: number): Promise<WatchEntry[]> {
    return this.statements.entries.all(numbered(watchlistId, after, limit));
  }

  async deleteWatchEntry(watchlistId: string, seq: number): Promise<boolean> {
    return this.write(() => this.deleteEntryOnce(watchlistId, seq));
  }

  async watchedIn(
    watchlistId: string,
    personIds: readonly string[],
    companyIds: readonly string[],
  ): Promise<Watched> {
    if (personIds.length === 0 && companyIds.length === 0) return watchedOf([]);
    return watchedOf(
      this.statements.watched.all(
        numbered(watchlistId, JSON.stringify(personIds), JSON.stringify(companyIds)),
      ),
    );
  }
}
