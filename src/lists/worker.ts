// The background worker of list jobs in a server process: claims the oldest job waiting (under a lease, so
// that one process at a time runs it however many servers share the store), runs it, and prunes the jobs and
// files whose 7 days are over. Closing it gives the job under way back to the queue after its chunk.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ListFiles } from './files.js';
import { chargeSegment, type ListRunContext, ListStopped, runList } from './run.js';

/** How long a claim holds without the progress that renews it. */
export const LEASE_MS = 60_000;
/** How often jobs left by a process that died are looked for, when nothing wakes the worker. */
const POLL_MS = 5_000;
/** How often expired jobs are pruned. */
const PRUNE_EVERY_MS = 3_600_000;

export type ListWorkerDeps = Omit<ListRunContext, 'owner' | 'leaseMs' | 'stopping' | 'sleep'> & {
  files: ListFiles;
  leaseMs?: number;
  pollMs?: number;
};

export class ListWorker {
  private readonly owner = `lw_${randomUUID()}`;
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private again = false;
  private poll: NodeJS.Timeout | undefined;
  private prune: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ListWorkerDeps) {}

  start(): void {
    this.poll = setInterval(() => this.wake(), this.deps.pollMs ?? POLL_MS);
    this.poll.unref();
    this.prune = setInterval(() => void this.pruneExpired(), PRUNE_EVERY_MS);
    this.prune.unref();
    void this.pruneExpired();
    this.wake();
  }

  /** Looks for jobs now (a list was just uploaded). */
  wake(): void {
    if (this.abort.signal.aborted) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Stops: the job under way goes back to the queue once its chunk is committed. */
  async close(): Promise<void> {
    this.abort.abort();
    clearInterval(this.poll);
    clearInterval(this.prune);
    await this.running;
  }

  private get context(): ListRunContext {
    const { signal } = this.abort;
    return {
      ...this.deps,
      owner: this.owner,
      leaseMs: this.deps.leaseMs ?? LEASE_MS,
      stopping: () => signal.aborted,
      sleep: (ms) =>
        sleep(ms, undefined, { signal }).catch(() => {
          throw new ListStopped();
        }),
    };
  }

  /** Runs jobs while there are any waiting. */
  private async drain(): Promise<void> {
    const { store } = this.deps;
    const leaseMs = this.deps.leaseMs ?? LEASE_MS;
    try {
      while (!this.abort.signal.aborted) {
        const now = Date.now();
        const job = await store.claimList(
          this.owner,
          new Date(now).toISOString(),
          new Date(now + leaseMs).toISOString(),
        );
        if (job === undefined) return;
        await runList(job, this.context);
      }
    } catch (error) {
      this.deps.onError(error);
    }
  }

  /** Deletes the jobs whose time is over, then their files and the marks of their charges. */
  private async pruneExpired(): Promise<void> {
    try {
      const ids = await this.deps.store.pruneLists(new Date().toISOString());
      for (const id of ids) {
        await this.deps.files.remove(id);
        await this.deps.store.forgetJournal(chargeSegment(id));
      }
    } catch (error) {
      this.deps.onError(error);
    }
  }
}
