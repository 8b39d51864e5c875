// The SQLite store's background writes — audit entries, usage and quota counts — in a worker thread
// with its own connection: the thread that serves lookups never runs an INSERT, a commit or a WAL
// checkpoint (and its fsync) while it serves.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../worker.js';
import type { AuditEntry, UsageRow } from '../store.js';

export interface WriterWorkerInput {
  path: string;
}

export type WriterOp =
  | { op: 'audit'; entries: AuditEntry[] }
  | { op: 'usage'; rows: UsageRow[] }
  | { op: 'quota'; period: string; counts: Map<string, number> }
  | { op: 'prune'; before: Date };

export type WriterRequest = WriterOp & { id: number };

export type WriterReply =
  | { id: number; ok: true; result?: number }
  | { id: number; ok: false; message: string };

interface Pending {
  resolve: (result: number | undefined) => void;
  reject: (error: Error) => void;
}

/**
 * A writer thread over the database file at `path`. Requests are done in the order given, each in its
 * own transaction, and answered when committed. Once the thread has failed or closed, `running` is
 * false and every request is refused, so the store writes on its own connection instead.
 */
export class SqliteWriter {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private readonly exited: Promise<void>;
  private next = 0;
  private stopped: Error | undefined;

  constructor(path: string) {
    const input: WriterWorkerInput = { path };
    this.worker = startWorker(import.meta.url, './writer-worker', input);
    this.worker.on('message', (reply: WriterReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (reply.ok) waiting?.resolve(reply.result);
      else waiting?.reject(new Error(reply.message));
    });
    this.worker.on('error', (error) => this.stop(error));
    this.exited = new Promise((resolve) => {
      this.worker.once('exit', (code) => {
        this.stop(new Error(`the SQLite writer thread stopped (exit code ${code})`));
        resolve();
      });
    });
  }

  get running(): boolean {
    return this.stopped === undefined;
  }

  write(op: WriterOp): Promise<number | undefined> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...op, id } satisfies WriterRequest);
    });
  }

  /** Lets the thread finish every request already given, close its connection and stop. */
  async close(): Promise<void> {
    if (this.stopped === undefined) this.worker.postMessage('close');
    await this.exited;
  }

  private stop(error: Error): void {
    this.stopped ??= error;
    for (const waiting of this.pending.values()) waiting.reject(this.stopped);
    this.pending.clear();
  }
}
