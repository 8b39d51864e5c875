// Folding the accounting journal on PostgreSQL: entries, usage, quota counts and the offset in one transaction.
import type pg from 'pg';
import type { AccountingBatch } from '../accounting.js';
import { forgetting, JOURNAL_STATEMENTS } from '../sql/journal.js';
import { addAuditRows } from './audit.js';
import { inTransaction, query } from './pool.js';
import { addQuotaUse, addUsage } from './usage.js';

/** Folds a run if the segment is folded exactly up to `from`; the row lock keeps two folders apart. */
export function foldJournal(
  primary: pg.Pool,
  segment: string,
  from: number,
  to: number,
  batch: AccountingBatch,
): Promise<boolean> {
  return inTransaction(primary, async (client) => {
    // A row to lock, for a segment never folded: concurrent folders of it then take turns.
    await client.query({
      text: 'INSERT INTO journal_folds (segment, folded) VALUES ($1, 0) ON CONFLICT (segment) DO NOTHING',
      values: [segment],
    });
    const { rows } = await client.query<{ folded: string }>({
      text: `${JOURNAL_STATEMENTS.offset} FOR UPDATE`,
      values: [segment],
    });
    if (Number(rows[0]?.folded ?? 0) !== from) return false;
    await addAuditRows(client, batch.audit);
    await addUsage(client, batch.usage);
    for (const [period, counts] of batch.quota) await addQuotaUse(client, period, counts);
    await client.query({ text: JOURNAL_STATEMENTS.advance, values: [segment, to] });
    return true;
  });
}

export async function journalOffset(primary: pg.Pool, segment: string): Promise<number> {
  const { rows } = await query<{ folded: string }>(primary, {
    text: JOURNAL_STATEMENTS.offset,
    values: [segment],
  });
  return Number(rows[0]?.folded ?? 0);
}

/** Marks a segment forgotten and drops the marks that have expired, in one transaction. */
export function forgetJournal(primary: pg.Pool, segment: string): Promise<void> {
  const { mark, expiredAbove } = forgetting();
  return inTransaction(primary, async (client) => {
    await client.query({ text: JOURNAL_STATEMENTS.advance, values: [segment, mark] });
    await client.query({ text: JOURNAL_STATEMENTS.dropMarks, values: [expiredAbove] });
  });
}
