// The statements of the watchlists role, written once for both stores; adding entries and asking which ids
// a watchlist holds differ by backend (sqlite/watchlists.ts, postgres/watchlists.ts).
import type { Watched } from '../watchlists.js';
import type { Spelling } from './spelling.js';

export const WATCHLIST_COLUMNS = 'id, key_id, name, size, created_at';
export const WATCH_ENTRY_COLUMNS = 'seq, kind, record_id, ref';

export const watchlistStatements = (s: Spelling) => ({
  create: `INSERT INTO watchlists (id, key_id, name, size, created_at) VALUES ($1, $2, $3, 0, $4)`,
  get: `SELECT ${WATCHLIST_COLUMNS} FROM watchlists WHERE key_id = $1 AND id = $2`,
  list: `SELECT ${WATCHLIST_COLUMNS} FROM watchlists WHERE key_id = $1 ORDER BY created_at, ${s.bytewise('id')}`,
  delete: 'DELETE FROM watchlists WHERE key_id = $1 AND id = $2',
  deleteEntries: 'DELETE FROM watchlist_entries WHERE watchlist_id = $1',
  grow: 'UPDATE watchlists SET size = size + $2 WHERE id = $1',
  entries: `SELECT ${WATCH_ENTRY_COLUMNS} FROM watchlist_entries WHERE watchlist_id = $1 AND seq > $2
            ORDER BY seq LIMIT $3`,
  deleteEntry: 'DELETE FROM watchlist_entries WHERE watchlist_id = $1 AND seq = $2',
});

/** The ids a watchlist watches among those asked about, from rows of (kind, record_id). */
export function watchedOf(rows: ReadonlyArray<{ kind: string; record_id: string }>): Watched {
  const watched = { persons: new Set<string>(), companies: new Set<string>() };
  for (const { kind, record_id } of rows) {
    (kind === 'person' ? watched.persons : watched.companies).add(record_id);
  }
  return watched;
}
