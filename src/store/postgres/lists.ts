// The lists role on PostgreSQL: the shared statements (../sql/lists.ts); a claim locks the job it takes and
// skips those another claimer has locked, so two servers never take the same job.
import type pg from 'pg';
import type { ListEnd, ListJob, ListProgress, ListStore, NewListJob } from '../lists.js';
import { advanceValues, listStatements, waiting } from '../sql/lists.js';
import { POSTGRES } from '../sql/spelling.js';
import { query } from './pool.js';

const SQL = listStatements(POSTGRES);

/** The numbers PostgreSQL gives back as text (bigint). */
const NUMBERS = [
  'rows',
  'processed',
  'matched',
  'not_found',
  'ambiguous',
  'invalid',
  'quota_exceeded',
  'output_bytes',
] as const;

function toListJob(row: Record<string, unknown>): ListJob {
  const job = { ...row } as Record<string, unknown>;
  for (const name of NUMBERS) job[name] = row[name] === null ? null : Number(row[name]);
  return job as unknown as ListJob;
}

// The oldest job waiting, locked; one another claimer holds is skipped, and one it has just taken no longer
// matches once its lock is released (the condition is checked again on the row's new version).
const CLAIM = SQL.take(
  `(SELECT id FROM lists WHERE ${waiting('$3')} ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)`,
);

export class PostgresLists implements ListStore {
  constructor(private readonly primary: pg.Pool) {}

  async createList(job: NewListJob): Promise<void> {
    const { id, key_id, entity, format, options, mapping, created_at, expires_at } = job;
    await query(this.primary, {
      text: SQL.create,
      values: [id, key_id, entity, format, options, mapping, created_at, expires_at],
    });
  }

  async getList(keyId: string, id: string): Promise<ListJob | undefined> {
    const { rows } = await query(this.primary, { text: SQL.get, values: [keyId, id] });
    return rows[0] && toListJob(rows[0]);
  }

  async listLists(keyId: string, page: { after?: string | undefined; limit: number }): Promise<ListJob[]> {
    const { rows } =
      page.after === undefined
        ? await query(this.primary, { text: SQL.page, values: [keyId, page.limit] })
        : await query(this.primary, { text: SQL.pageAfter, values: [keyId, page.limit, page.after] });
    return rows.map(toListJob);
  }

  async deleteList(keyId: string, id: string): Promise<boolean> {
    const { rowCount } = await query(this.primary, { text: SQL.delete, values: [keyId, id] });
    return rowCount === 1;
  }

  async claimList(owner: string, now: string, leaseUntil: string): Promise<ListJob | undefined> {
    const { rows } = await query(this.primary, { text: CLAIM, values: [owner, leaseUntil, now] });
    return rows[0] && toListJob(rows[0]);
  }

  async advanceList(
    id: string,
    owner: string,
    progress: ListProgress & { rows: number | null },
    leaseUntil: string,
  ): Promise<boolean> {
    const { rowCount } = await query(this.primary, {
      text: SQL.advance,
      values: [id, owner, ...advanceValues(progress, leaseUntil)],
    });
    return rowCount === 1;
  }

  async finishList(id: string, owner: string, end: ListEnd): Promise<boolean> {
    const { rowCount } = await query(this.primary, {
      text: SQL.finish,
      values: [id, owner, end.status, end.problem, end.finished_at, end.expires_at],
    });
    return rowCount === 1;
  }

  async releaseList(id: string, owner: string): Promise<void> {
    await query(this.primary, { text: SQL.release, values: [id, owner] });
  }

  async pruneLists(now: string): Promise<string[]> {
    const { rows } = await query<{ id: string }>(this.primary, { text: SQL.prune, values: [now] });
    return rows.map((row) => row.id);
  }
}
