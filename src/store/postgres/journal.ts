// Folding the accounting journal on PostgreSQL: entries, usage, quota counts and the offset in one transaction.
import type pg from 'pg';
import { FORGOTTEN_FOR_MS, forgottenMark } from '../journal-marks.js';
import type { AccountingBatch } from '../store.js';
import { addAuditRows } from './audit.js';
import { addQuotaUse } from './keys.js';
import { inTransaction, query } from './pool.js';
import { addUsage } from './usage.js';

/** Folds a run if the segment is folded exactly up to `from`; the row lock keeps two folders apart. */
export function foldJournal(
  primary: pg.Pool,
  segment: string,
  from: number,
  to: number,
  batch: AccountingBatch,
): Promise<boolean> {
  return inTransaction(primary, async (client) => {
    await client.query({
      text: 'INSERT INTO journal_folds (segment, folded) VALUES ($1, 0) ON CONFLICT (segment) DO NOTHING',
      values: [segment],
    });
    const { rows } = await client.query<{ folded: string }>({
      text: 'SELECT folded FROM journal_folds WHERE segment = $1 FOR UPDATE',
      values: [segment],
    });
    if (Number(rows[0]?.folded ?? 0) !== from) return false;
    await addAuditRows(client, batch.audit);
    await addUsage(client, batch.usage);
    for (const [period, counts] of batch.quota) await addQuotaUse(client, period, counts);
    await client.query({
      text: 'UPDATE journal_folds SET folded = $2 WHERE segment = $1',
      values: [segment, to],
    });
    return true;
  });
}

export async function journalOffset(primary: pg.Pool, segment: string): Promise<number> {
  const { rows } = await query<{ folded: string }>(primary, {
    text: 'SELECT folded FROM journal_folds WHERE segment = $1',
    values: [segment],
  });
  return Number(rows[0]?.folded ?? 0);
}

/** Marks a segment forgotten (see forgottenMark) and drops marks older than a day, in one statement. */
export async function forgetJournal(primary: pg.Pool, segment: string): Promise<void> {
  const now = Date.now();
  await query(primary, {
    text: `WITH dropped AS (DELETE FROM journal_folds WHERE folded < 0 AND folded > $3 AND segment <> $1)
           INSERT INTO journal_folds (segment, folded) VALUES ($1, $2)
           ON CONFLICT (segment) DO UPDATE SET folded = excluded.folded`,
    values: [segment, forgottenMark(now), forgottenMark(now - FORGOTTEN_FOR_MS)],
  });
}
