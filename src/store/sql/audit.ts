// The audit log as both stores keep it: each entry's lists encoded one way, and the queries that are the same
// on both (by record id differs: SQLite's index is bucketed, see ../sqlite/audit.ts).
import type { AuditEntry, AuditFilter, AuditRow } from '../accounting.js';
import { entryMs } from './audit-segment.js';
import type { Spelling } from './spelling.js';

/** Parameter names and record ids never hold a comma, so a list is kept as one comma-joined text. */
export const joinList = (items: readonly string[]) => items.join(',');
export const splitList = (text: string) => (text === '' ? [] : text.split(','));

export const toAuditRow = (e: AuditEntry): AuditRow => ({
  atMs: entryMs(e.at),
  key_id: e.key_id,
  operation: e.operation,
  params: joinList(e.params),
  matched: joinList(e.matched),
  status: e.status,
});

/** Unbounded reads are capped here rather than trusted to the caller. */
const MAX_ROWS = 1_000_000;

/** What every audit query binds: the earliest time (always one, so the (key_id, at) index applies) and a limit. */
export const auditBounds = (s: Spelling, filter: AuditFilter) => ({
  since: filter.since === undefined ? s.beginningOfTime : new Date(filter.since).toISOString(),
  limit: filter.limit ?? MAX_ROWS,
});

export const AUDIT_COLUMNS = 'a.at, a.key_id, a.operation, a.params, a.matched, a.status';

/** Time order, then the order entries were written in: 'ASC' oldest first, 'DESC' newest first. */
export const auditOrder = (direction: 'ASC' | 'DESC') => `ORDER BY a.at ${direction}, a.id ${direction}`;

/** The queries of the log that are not by record, in one order. */
export const auditQueries = (direction: 'ASC' | 'DESC') => ({
  all: `SELECT ${AUDIT_COLUMNS} FROM audit_log a WHERE a.at >= $1 ${auditOrder(direction)} LIMIT $2`,
  byKey: `SELECT ${AUDIT_COLUMNS} FROM audit_log a WHERE a.key_id = $1 AND a.at >= $2
          ${auditOrder(direction)} LIMIT $3`,
});

export const PRUNE_AUDIT = 'DELETE FROM audit_log WHERE at < $1';
