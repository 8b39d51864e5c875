// A list job's rows looked up for its key as bulk items are: paced at the key's rate, the key checked live
// with its scope before each chunk, its quota met row by row, and each row's audit line kept until the chunk
// is committed with the job's progress (./commit.ts).
import { journalLine } from '../accounting/journal-format.js';
import type { MinuteCounts } from '../accounting/minute-counts.js';
import { requireLive, requireScopes } from '../auth/authenticate.js';
import { ProblemError } from '../errors.js';
import type { Resolver, RowOutcome, RowParams } from '../ingest/match/list.js';
import { MALFORMED, rowOutcome } from '../ingest/match/local.js';
import { type QuotaCounter, quotaExceeded, quotaPeriod } from '../limits/quota.js';
import type { RateLimiter } from '../limits/rate-limit.js';
import { allOutcomes, type BulkOutcome, disclosedIds, meetQuota, statusOf } from '../lookup/bulk.js';
import { givenParams, type ItemOutcome, lookupItem } from '../lookup/item.js';
import type { LookupOperation } from '../lookup/operations.js';
import type { ApiKey, KeyStore } from '../store/keys.js';
import type { RecordStore } from '../store/records.js';

export interface ResolverDeps {
  store: RecordStore & KeyStore;
  limiter: RateLimiter;
  quota: QuotaCounter;
  minutes?: MinuteCounts | undefined;
  /** Waits `ms`; rejects once the worker is stopping. */
  sleep(ms: number): Promise<void>;
}

/** The audit lines of a chunk of rows looked up, to be charged when the chunk is committed. */
export interface ChunkCharges {
  rows: number;
  /** One journal line per row (src/accounting/journal-format.ts). */
  lines: string[];
}

/** Most rows per chunk: a chunk is one commit of progress and charges. */
const MAX_CHUNK = 1000;

/** Rows per chunk for a key: a fifth of a second's worth, so that pacing stays smooth at low rates. */
export const chunkRows = (rate: number) => Math.max(1, Math.min(MAX_CHUNK, Math.floor(rate / 5)));

/** A row that could not be read: not looked up, audited as the 400 a lookup without identifiers gets. */
const UNREADABLE: ItemOutcome = {
  status: 'invalid',
  problem: new ProblemError('invalid_body', 'The row could not be read.'),
};

export class ListResolver implements Resolver {
  readonly inFlight = 1;
  readonly chunkSize: number;
  /** Chunks resolved and not yet committed, oldest first. */
  readonly charges: ChunkCharges[] = [];
  /** Set once the key's quota ran out: the job stops after the chunk that met it. */
  quotaSpent: ProblemError | undefined;
  /** Chunks are resolved one after the other, so their charges queue in row order. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: ResolverDeps,
    private readonly keyId: string,
    private readonly operation: LookupOperation,
    rate: number,
  ) {
    this.chunkSize = chunkRows(rate);
  }

  resolve(params: readonly RowParams[]): Promise<RowOutcome[]> {
    const work = this.turn.then(() => this.resolveNow(params));
    this.turn = work.catch(() => {});
    return work;
  }

  /** The job's key, live and holding the scope of its entity: a refusal stops the job with it. */
  private async liveKey(): Promise<ApiKey> {
    const key = await this.deps.store.getKey(this.keyId);
    if (key === undefined) throw new ProblemError('unauthorized', 'The key of this list no longer exists.');
    requireLive({ key, token: 'current' });
    requireScopes(key, [this.operation.scope]);
    return key;
  }

  /** Takes `cost` tokens from the key's bucket, waiting as long as it needs each time it is empty. */
  private async pace(key: ApiKey, cost: number): Promise<void> {
    for (;;) {
      const decision = await this.deps.limiter.take(key.id, key.rate, cost);
      if (decision.allowed) return;
      await this.deps.sleep(decision.waitMs);
    }
  }

  private async resolveNow(params: readonly RowParams[]): Promise<RowOutcome[]> {
    if (this.quotaSpent) throw this.quotaSpent;
    const { store, quota } = this.deps;
    let key = await this.liveKey();
    await this.pace(key, params.length);
    key = await this.liveKey();
    const grant = await quota.reserveItems(key, params.length);
    let outcomes: BulkOutcome[];
    try {
      outcomes = await allOutcomes(
        params.map((given) => (given === undefined ? UNREADABLE : lookupItem(store, this.operation, given))),
      );
    } catch (error) {
      grant?.settle(0);
      throw error;
    }
    const exceeded = () => quotaExceeded(key.quota ?? 0, quotaPeriod(new Date()));
    grant?.settle(meetQuota(outcomes, grant ? grant.granted : null, exceeded));
    this.charge(params, outcomes);
    return outcomes.map((outcome, i) => {
      if (params[i] === undefined) return MALFORMED;
      if (outcome.status !== 'quota_exceeded') return rowOutcome(outcome);
      this.quotaSpent ??= outcome.problem;
      return { status: 'quota_exceeded', problem: outcome.problem.detail };
    });
  }

  /** Queues each row's audit line, and counts it in its minute as a lookup is. */
  private charge(params: readonly RowParams[], outcomes: readonly BulkOutcome[]): void {
    const at = Date.now();
    const { operation } = this.operation;
    const lines = outcomes.map((outcome, i) => {
      const matched = disclosedIds(outcome);
      const status = statusOf(outcome);
      this.deps.minutes?.count(this.keyId, operation, status, matched.length > 0, undefined, at);
      const given = givenParams(this.operation, params[i]);
      return journalLine({ at, keyId: this.keyId, operation, params: given, matched, status });
    });
    this.charges.push({ rows: params.length, lines });
  }
}
