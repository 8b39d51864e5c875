// The watchlists role on PostgreSQL: the shared statements (../sql/watchlists.ts); entries added a batch per
// statement, the watchlist's row locked meanwhile, and the ids a page of events names asked about as arrays.
import type pg from 'pg';
import { POSTGRES } from '../sql/spelling.js';
import { watchedOf, watchlistStatements } from '../sql/watchlists.js';
import type { NewWatchEntry, WatchEntry, Watched, Watchlist, WatchlistStore } from '../watchlists.js';
import { inTransaction, query } from './pool.js';

const SQL = watchlistStatements(POSTGRES);

/** Rows as PostgreSQL gives them back: bigints as text. */
type WatchlistRow = Omit<Watchlist, 'size'> & { size: string };
type WatchEntryRow = Omit<WatchEntry, 'seq'> & { seq: string };

const toWatchlist = (row: WatchlistRow): Watchlist => ({ ...row, size: Number(row.size) });
const toWatchEntry = (row: WatchEntryRow): WatchEntry => ({ ...row, seq: Number(row.seq) });

// `xmax = 0` tells a row this statement inserted from one it updated (it was there already).
const ADD = `INSERT INTO watchlist_entries (watchlist_id, kind, record_id, ref)
  SELECT $1::text, * FROM unnest($2::text[], $3::text[], $4::text[])
  ON CONFLICT (watchlist_id, kind, record_id) DO UPDATE SET ref = EXCLUDED.ref
  RETURNING (xmax = 0) AS inserted`;

const WATCHED = `SELECT kind, record_id FROM watchlist_entries
  WHERE watchlist_id = $1 AND kind = 'person' AND record_id = ANY($2::text[])
  UNION ALL
  SELECT kind, record_id FROM watchlist_entries
  WHERE watchlist_id = $1 AND kind = 'company' AND record_id = ANY($3::text[])`;

/** One row per kind and record, the last ref given winning: one statement may not update a row twice. */
function distinct(entries: readonly NewWatchEntry[]): NewWatchEntry[] {
  const byRecord = new Map<string, NewWatchEntry>();
  for (const entry of entries) byRecord.set(`${entry.kind}:${entry.record_id}`, entry);
  return [...byRecord.values()];
}

export class PostgresWatchlists implements WatchlistStore {
  constructor(private readonly primary: pg.Pool) {}

  async createWatchlist({ id, key_id, name, created_at }: Omit<Watchlist, 'size'>): Promise<void> {
    await query(this.primary, { text: SQL.create, values: [id, key_id, name, created_at] });
  }

  async getWatchlist(keyId: string, id: string): Promise<Watchlist | undefined> {
    const { rows } = await query<WatchlistRow>(this.primary, { text: SQL.get, values: [keyId, id] });
    return rows[0] && toWatchlist(rows[0]);
  }

  async listWatchlists(keyId: string): Promise<Watchlist[]> {
    const { rows } = await query<WatchlistRow>(this.primary, { text: SQL.list, values: [keyId] });
    return rows.map(toWatchlist);
  }

  deleteWatchlist(keyId: string, id: string): Promise<boolean> {
    return inTransaction(this.primary, async (client) => {
      const { rowCount } = await client.query({ text: SQL.delete, values: [keyId, id] });
      if (rowCount !== 1) return false;
      await client.query({ text: SQL.deleteEntries, values: [id] });
      return true;
    });
  }

  /** The watchlist's row is locked first: adds to one watchlist take turns, and its size stays exact. */
  addWatchEntries(watchlistId: string, entries: readonly NewWatchEntry[]): Promise<number> {
    return inTransaction(this.primary, async (client) => {
      const locked = await client.query<{ size: string }>({
        text: 'SELECT size FROM watchlists WHERE id = $1 FOR UPDATE',
        values: [watchlistId],
      });
      if (locked.rows.length === 0) return 0;
      const rows = distinct(entries);
      if (rows.length === 0) return Number(locked.rows[0]!.size);
      const { rows: written } = await client.query<{ inserted: boolean }>({
        text: ADD,
        values: [
          watchlistId,
          rows.map((row) => row.kind),
          rows.map((row) => row.record_id),
          rows.map((row) => row.ref),
        ],
      });
      const added = written.filter((row) => row.inserted).length;
      if (added > 0) await client.query({ text: SQL.grow, values: [watchlistId, added] });
      return Number(locked.rows[0]!.size) + added;
    });
  }

  async listWatchEntries(watchlistId: string, after: number, limit: number): Promise<WatchEntry[]> {
    const { rows } = await query<WatchEntryRow>(this.primary, {
      text: SQL.entries,
      values: [watchlistId, after, limit],
    });
    return rows.map(toWatchEntry);
  }

  deleteWatchEntry(watchlistId: string, seq: number): Promise<boolean> {
    return inTransaction(this.primary, async (client) => {
      const { rowCount } = await client.query({ text: SQL.deleteEntry, values: [watchlistId, seq] });
      if (rowCount !== 1) return false;
      await client.query({ text: SQL.grow, values: [watchlistId, -1] });
      return true;
    });
  }

  async watchedIn(
    watchlistId: string,
    personIds: readonly string[],
    companyIds: readonly string[],
  ): Promise<Watched> {
    if (personIds.length === 0 && companyIds.length === 0) return watchedOf([]);
    const { rows } = await query<{ kind: string; record_id: string }>(this.primary, {
      name: 'enrich_watched_in',
      text: WATCHED,
      values: [watchlistId, personIds, companyIds],
    });
    return watchedOf(rows);
  }
}
