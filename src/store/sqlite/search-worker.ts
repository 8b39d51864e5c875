// Worker thread: runs SQLite searches on a read-only connection of its own, so that a costly search (free
// text matching much of a large store) never holds the event loop that answers lookups.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { messageOf } from '../../errors.js';
import type { SearchPage, SearchQuery } from '../search.js';
import { previewOf } from '../search-preview.js';
import { applyPragmas } from './schema.js';
import { SqliteSearch } from './search.js';
import { TurnSnapshot } from './snapshot.js';

export interface SearchWorkerInput {
  /** The store's file. */
  path: string;
  /** Each search's budget of work (SEARCH_BUDGET_MS unless a test sets another). */
  budgetMs?: number | undefined;
}

export interface SearchRequest {
  id: number;
  entity: 'people' | 'companies';
  query: SearchQuery<unknown>;
}

export type SearchReply = { id: number; page: SearchPage } | { id: number; failure: string };

const { path, budgetMs } = workerData as SearchWorkerInput;
const db = new Database(path, { readonly: true, fileMustExist: true });
applyPragmas(db, true);
const search = new SqliteSearch(db, new TurnSnapshot(db), budgetMs);

parentPort!.on('message', ({ id, entity, query }: SearchRequest) => {
  let reply: SearchReply;
  try {
    const page = search.searchNow(entity, query);
    // The previews are made here: the bodies read stay on this thread.
    const { preview } = query;
    if (preview)
      page.hits = page.hits.map((hit) => ({ id: hit.id, rank: hit.rank, preview: previewOf(preview, hit) }));
    reply = { id, page };
  } catch (error) {
    reply = { id, failure: messageOf(error) };
  }
  parentPort!.postMessage(reply);
});
