// The server's searches on SQLite, answered by a worker thread (search-worker.ts) on a connection of its own:
// the event loop that answers lookups only waits for the page, whatever a search costs.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../worker.js';
import type { SearchPage, SearchQuery } from '../search.js';
import type { SearchReply, SearchRequest, SearchWorkerInput } from './search-worker.js';

interface Pending {
  resolve(page: SearchPage): void;
  reject(error: Error): void;
  /** The page promised, for close() to wait on. */
  page: Promise<SearchPage>;
}

export class SearchThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** False once the worker has failed or stopped: the store then searches on its own connection again. */
  running = true;

  constructor(path: string, budgetMs?: number) {
    const input: SearchWorkerInput = { path, budgetMs };
    this.worker = startWorker(import.meta.url, './search-worker', input);
    // The worker never keeps a process alive: the store's close ends it.
    this.worker.unref();
    this.worker.on('message', (reply: SearchReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if ('page' in reply) waiting?.resolve(reply.page);
      else waiting?.reject(new Error(reply.failure));
    });
    const stopped = (error: Error) => {
      this.running = false;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', stopped);
    this.worker.on('exit', () => stopped(new Error('the search thread stopped')));
  }

  /** One search's page, from the worker's own read transaction. */
  search(entity: SearchRequest['entity'], query: SearchQuery<unknown>): Promise<SearchPage> {
    const id = this.nextId++;
    let settle!: Pick<Pending, 'resolve' | 'reject'>;
    const page = new Promise<SearchPage>((resolve, reject) => (settle = { resolve, reject }));
    this.pending.set(id, { ...settle, page });
    this.worker.postMessage({ id, entity, query } satisfies SearchRequest);
    return page;
  }

  /**
   * Ends the worker once the searches it was sent are answered (each is bounded by its budget): a server
   * stops after its connections close, and a search whose client has gone is still answered, not failed.
   */
  async close(): Promise<void> {
    this.running = false;
    await Promise.allSettled([...this.pending.values()].map((waiting) => waiting.page));
    await this.worker.terminate();
  }
}
