// Runs one list job claimed by this process: `enrich match`'s engine over the uploaded file, the rows after
// those already processed, each chunk's result written, charged and committed before the next; the job ends
// done, failed with the problem that stopped it, or (the server stopping) back in the queue where it stopped.
import { foldLines } from '../accounting/journal-format.js';
import { ProblemError, toProblem } from '../errors.js';
import { fieldSelection } from '../ingest/match/fields.js';
import {
  listWriter,
  mapColumns,
  matchList,
  type OpenList,
  openList,
  operationOf,
  paramsOfRows,
  parseOverride,
} from '../ingest/match/index.js';
import { ListError, type ListRow } from '../ingest/match/list.js';
import type { MatchCounts } from '../ingest/match/match.js';
import type { ListReader } from '../ingest/match/reader.js';
import type { AccountingStore } from '../store/accounting.js';
import type { KeyStore } from '../store/keys.js';
import type { ListJob, ListProgress, ListStore } from '../store/lists.js';
import type { RecordStore } from '../store/records.js';
import type { ListFiles } from './files.js';
import { type ListOptions, MAX_LIST_ROWS, RESULT_DAYS } from './options.js';
import { type ChunkCharges, ListResolver, type ResolverDeps } from './resolver.js';
import { ResultFile } from './result-file.js';

export interface ListRunContext extends ResolverDeps {
  store: RecordStore & KeyStore & ListStore & AccountingStore;
  files: ListFiles;
  /** This process, as the lease names it. */
  owner: string;
  leaseMs: number;
  /** True once the worker is stopping: the job goes back to the queue after its chunk. */
  stopping(): boolean;
  onError(error: unknown): void;
}

/** The server is stopping: the job is given back, to be resumed where it stopped. */
export class ListStopped extends Error {
  override name = 'ListStopped';
}

/** The job is no longer this process's: deleted, or its lease ran out and another took it. */
class LeaseLost extends Error {
  override name = 'LeaseLost';
}

/** The segment a job's charges are folded under, as a journal's are: each row is charged exactly once. */
export const chargeSegment = (id: string) => `list:${id}`;

const iso = (ms: number) => new Date(ms).toISOString();

/** The rows of a list after its first `skip` (those a resumed job processed before). */
function after(reader: ListReader, skip: number): ListReader {
  return {
    columns: reader.columns,
    async *batches() {
      let left = skip;
      for await (const batch of reader.batches()) {
        if (left >= batch.length) {
          left -= batch.length;
          continue;
        }
        yield left > 0 ? batch.slice(left) : batch;
        left = 0;
      }
    },
  };
}

/** Counts a list's rows, reading it once through. */
async function countRows(path: string): Promise<number> {
  const list = await openList(path);
  let rows = 0;
  try {
    for await (const batch of list.reader.batches()) rows += (batch as ListRow[]).length;
  } finally {
    await list.close();
  }
  return rows;
}

/** Runs a job this process has claimed, to its end or until the worker stops. */
export async function runList(job: ListJob, ctx: ListRunContext): Promise<void> {
  const { store, owner } = ctx;
  try {
    await matchJob(job, ctx);
    const now = Date.now();
    await store.finishList(job.id, owner, {
      status: 'done',
      problem: null,
      finished_at: iso(now),
      expires_at: iso(now + RESULT_DAYS * 86_400_000),
    });
  } catch (error) {
    if (error instanceof LeaseLost) return;
    if (error instanceof ListStopped || toProblem(error).code === 'unavailable') {
      await store.releaseList(job.id, owner).catch(() => {});
      return;
    }
    const problem =
      error instanceof ListError ? new ProblemError('invalid_body', error.message) : toProblem(error);
    if (problem.status >= 500) ctx.onError(error);
    const now = Date.now();
    await store.finishList(job.id, owner, {
      status: 'failed',
      problem: JSON.stringify({
        code: problem.code,
        detail: problem.status >= 500 ? 'The list could not be matched: the server failed.' : problem.detail,
      }),
      finished_at: iso(now),
      expires_at: iso(now + RESULT_DAYS * 86_400_000),
    });
  }
}

async function matchJob(job: ListJob, ctx: ListRunContext): Promise<void> {
  const { store, owner } = ctx;
  const key = await store.getKey(job.key_id);
  const path = ctx.files.upload(job.id);
  const rows = job.rows ?? (await countRows(path));
  if (rows > MAX_LIST_ROWS) {
    throw new ProblemError(
      'payload_too_large',
      `The list holds ${rows.toLocaleString('en')} rows; a list may hold up to ${MAX_LIST_ROWS.toLocaleString('en')}.`,
    );
  }
  const progress: ListProgress & { rows: number | null } = { ...job, rows };
  const lease = () => iso(Date.now() + ctx.leaseMs);
  if (!(await store.advanceList(job.id, owner, progress, lease()))) throw new LeaseLost();

  const options = JSON.parse(job.options) as ListOptions;
  const operation = operationOf(job.entity);
  const overrides = options.map.map(parseOverride);
  const selection = options.fields === null ? undefined : await fieldSelection(job.entity, options.fields);
  const resolver = new ListResolver(ctx, job.key_id, operation, key?.rate ?? 1);
  const segment = chargeSegment(job.id);
  // Rows charged already: a job stopped between its charges and its progress has more than it processed.
  let charged = Math.max(job.processed, await store.journalOffset(segment));

  let list: OpenList | undefined;
  let result: ResultFile | undefined;
  try {
    list = await openList(path);
    const uses = mapColumns(list.reader.columns, operation, overrides);
    const writer = listWriter(list.shape, list.reader.columns, selection, { entity: job.entity });
    const out = new ResultFile(ctx.files.result(job.id), job.output_bytes);
    result = out;
    const resuming = job.processed > 0;
    const commit = async (counts: MatchCounts) => {
      const chunk = resolver.charges.shift()!;
      const from = progress.processed;
      charged = await chargeChunk(store, segment, from, charged, chunk);
      out.sync();
      const { byStatus } = counts;
      Object.assign(progress, {
        processed: job.processed + counts.rows,
        matched: job.matched + byStatus.matched,
        not_found: job.not_found + byStatus.not_found,
        ambiguous: job.ambiguous + byStatus.ambiguous,
        invalid: job.invalid + byStatus.invalid,
        quota_exceeded: job.quota_exceeded + byStatus.quota_exceeded,
        output_bytes: out.bytes,
      });
      if (!(await store.advanceList(job.id, owner, progress, lease()))) throw new LeaseLost();
      if (resolver.quotaSpent) throw resolver.quotaSpent;
      if (ctx.stopping()) throw new ListStopped();
    };
    await matchList({
      reader: after(list.reader, job.processed),
      paramsOf: paramsOfRows(list.shape, uses, operation, overrides),
      resolver,
      // A resumed job's result has its header already.
      writer: resuming ? { head: () => '', rows: (r, o) => writer.rows(r, o) } : writer,
      out: { open: async () => out.stream },
      onProgress: commit,
    });
    out.sync();
    progress.output_bytes = out.bytes;
    if (!(await store.advanceList(job.id, owner, progress, lease()))) throw new LeaseLost();
  } finally {
    result?.close();
    await list?.close();
  }
}

/**
 * Charges a chunk's rows (those from `from`) that are not charged already (before `charged`), folded into
 * the store as a journal's run is: exactly once, whoever folds it. Returns how far rows are charged now.
 */
async function chargeChunk(
  store: AccountingStore,
  segment: string,
  from: number,
  charged: number,
  chunk: ChunkCharges,
): Promise<number> {
  const to = from + chunk.rows;
  if (charged >= to) return charged;
  const lines = chunk.lines.slice(Math.max(0, charged - from)).join('');
  if (!(await store.foldJournal(segment, charged, to, foldLines(lines)))) throw new LeaseLost();
  return to;
}
