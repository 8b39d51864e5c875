// How far each accounting journal segment is folded, kept the same way by both stores: the statements, and
// how a forgotten segment is marked.

export const JOURNAL_STATEMENTS = {
  /** The offset a segment is folded up to (PostgreSQL's fold locks the row as it reads it). */
  offset: 'SELECT folded FROM journal_folds WHERE segment = $1',
  advance: `INSERT INTO journal_folds (segment, folded) VALUES ($1, $2)
            ON CONFLICT (segment) DO UPDATE SET folded = excluded.folded`,
  /** Forgotten marks older than a time (see `forgetting`). */
  dropMarks: 'DELETE FROM journal_folds WHERE folded < 0 AND folded > $1',
} as const;

/** How long a forgotten segment's mark is kept: far longer than any folder holds a run it has read. */
export const FORGOTTEN_FOR_MS = 86_400_000;

/**
 * What forgetting a segment now writes: its offset becomes minus the time it was forgotten (`mark`), so
 * that old marks can be found and dropped (those above `expiredAbove` were made more than
 * FORGOTTEN_FOR_MS ago). Deleting the offset instead would let a folder that read the file before it went
 * fold its runs again from 0, counting them twice.
 */
export function forgetting(now = Date.now()) {
  return { mark: -now, expiredAbove: -(now - FORGOTTEN_FOR_MS) };
}
