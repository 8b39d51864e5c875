// The lists role of the store (contract §9, Lists): a key's list jobs, their progress, and the claim with a
// lease that lets one process at a time run a job whatever the number of servers.
import type { Entity } from '../vocabulary/entities.js';

export type ListStatus = 'queued' | 'running' | 'done' | 'failed';

/** What a job has got through: rows matched each way, and the bytes of its result written so far. */
export interface ListProgress {
  processed: number;
  matched: number;
  not_found: number;
  ambiguous: number;
  invalid: number;
  quota_exceeded: number;
  /** Bytes of the result file that hold the rows processed (the file is cut back to this on a resume). */
  output_bytes: number;
}

/** A list job as stored. Times are ISO-8601 strings; `options` and `mapping` JSON text; `problem` JSON or null. */
export interface ListJob extends ListProgress {
  id: string;
  key_id: string;
  entity: Entity;
  format: 'csv' | 'ndjson';
  /** How the job was asked to match: `{"map": ["column=param", …], "fields": "a,b" | null}`. */
  options: string;
  /** The columns used and the parameters each gives: `[{"column", "params": […]}]`. */
  mapping: string;
  status: ListStatus;
  /** Rows in the list, once counted (null before). */
  rows: number | null;
  /** Why a failed job stopped: `{"code", "detail"}`. */
  problem: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** When the job and its files are pruned. */
  expires_at: string;
}

export type NewListJob = Pick<
  ListJob,
  'id' | 'key_id' | 'entity' | 'format' | 'options' | 'mapping' | 'created_at' | 'expires_at'
>;

/** How a job ended. */
export interface ListEnd {
  status: 'done' | 'failed';
  problem: string | null;
  finished_at: string;
  expires_at: string;
}

export interface ListStore {
  createList(job: NewListJob): Promise<void>;
  /** The key's own job; undefined for another key's, as for none. */
  getList(keyId: string, id: string): Promise<ListJob | undefined>;
  /** The key's jobs, newest first, at most `limit`, those after the job `after` (the last of the page before). */
  listLists(keyId: string, page: { after?: string | undefined; limit: number }): Promise<ListJob[]>;
  /** Deletes the key's job; false when it has none of that id. */
  deleteList(keyId: string, id: string): Promise<boolean>;
  /**
   * Claims the oldest job waiting (queued, or running under a lease that ran out before `now`) for `owner`
   * until `leaseUntil`: it becomes running. Undefined when none waits. Two processes never claim one job.
   */
  claimList(owner: string, now: string, leaseUntil: string): Promise<ListJob | undefined>;
  /**
   * Records a running job's progress (and its row count, once known) and renews its lease, if `owner`
   * still holds it; false otherwise (the job was deleted, or its lease ran out and another took it).
   */
  advanceList(
    id: string,
    owner: string,
    progress: ListProgress & { rows: number | null },
    leaseUntil: string,
  ): Promise<boolean>;
  /** Ends a job `owner` holds (done or failed); false when it holds it no more. */
  finishList(id: string, owner: string, end: ListEnd): Promise<boolean>;
  /** Gives a job `owner` holds back to the queue, its progress kept (a server shutting down). */
  releaseList(id: string, owner: string): Promise<void>;
  /** Deletes the jobs that expired before `now`; returns their ids (their files go next). */
  pruneLists(now: string): Promise<string[]>;
}
