// The statements of the sessions role, written once for both stores.

/** The table, as both migrations make it (SQLite 20, PostgreSQL 17). */
export const SESSIONS_TABLE = `CREATE TABLE IF NOT EXISTS console_sessions (
     hash TEXT PRIMARY KEY,
     key_id TEXT NOT NULL,
     key_hash TEXT NOT NULL,
     created_at TEXT NOT NULL,
     last_seen_at TEXT NOT NULL
   );
   CREATE INDEX IF NOT EXISTS console_sessions_seen ON console_sessions (last_seen_at);`;

export const SESSION_STATEMENTS = {
  create: `INSERT INTO console_sessions (hash, key_id, key_hash, created_at, last_seen_at)
           VALUES ($1, $2, $3, $4, $5)`,
  find: 'SELECT key_id, key_hash, created_at, last_seen_at FROM console_sessions WHERE hash = $1',
  touch: 'UPDATE console_sessions SET last_seen_at = $2 WHERE hash = $1',
  delete: 'DELETE FROM console_sessions WHERE hash = $1',
  prune: 'DELETE FROM console_sessions WHERE last_seen_at < $1',
} as const;
