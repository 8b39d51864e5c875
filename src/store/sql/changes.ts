// The change log's statements, written once for both stores (src/store/sqlite/changes.ts,
// src/store/postgres/changes.ts), and how a row of it becomes a LoggedEvent.
import type { ClassifiedEvent, LoggedEvent } from '../../changes/events.js';
import type { Spelling } from './spelling.js';

/** Entries a pruning statement removes at once: short transactions, so writers never wait for long. */
export const PRUNE_BATCH = 1_000;

export const changeStatements = (s: Spelling) => ({
  read: `SELECT seq, at, type, data FROM change_log WHERE seq > $1 ORDER BY seq LIMIT $2`,
  /** Of some types only: $3 is the list of types (a JSON array on SQLite, an array on PostgreSQL). */
  readTypes: `SELECT seq, at, type, data FROM change_log WHERE seq > $1 AND type IN (${s.list('$3')})
              ORDER BY seq LIMIT $2`,
  /**
   * Each end by the key, one subquery each: SQLite reads `min(seq), max(seq)` of one SELECT by scanning the
   * whole log (its min/max shortcut takes a lone aggregate only).
   */
  bounds: `SELECT coalesce((SELECT min(seq) FROM change_log), 0) AS first,
                  coalesce((SELECT max(seq) FROM change_log), 0) AS last`,
  last: 'SELECT coalesce(max(seq), 0) AS last FROM change_log',
  /**
   * The oldest `$2` entries that were committed before `$1`: the log is read from its start by sequence
   * number, so no index on time is kept (an entry whose clock ran back is pruned with the next batch).
   */
  prune: `DELETE FROM change_log
          WHERE seq IN (SELECT seq FROM change_log ORDER BY seq LIMIT $2) AND at < ${s.typed('$1', 'timestamptz')}`,
});

/** A row of the log as both backends read it (PostgreSQL: seq as text, at as a Date). */
export interface ChangeRow {
  seq: number | string;
  at: string | Date;
  type: string;
  data: string;
}

/** The event a row of the log holds. */
export function loggedEvent(row: ChangeRow): LoggedEvent {
  const at = typeof row.at === 'string' ? row.at : row.at.toISOString();
  return { seq: Number(row.seq), at, type: row.type, data: JSON.parse(row.data) } as LoggedEvent;
}

/** An event's columns as appended: its type and its data's JSON text. */
export const eventColumns = (event: ClassifiedEvent): [string, string] => [
  event.type,
  JSON.stringify(event.data),
];
