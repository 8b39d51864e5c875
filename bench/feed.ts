// The feed of changes (GET /v1/changes, issue 20): events a second to one reader paging through the whole log,
// 1,000 events a page, as a consumer catching up after the imports does.
import { createKey } from './enrich.js';
import { int, table } from './format.js';

export interface FeedRun {
  events: number;
  pages: number;
  seconds: number;
  perSecond: number;
}

/** A key that may read the feed (and nothing else), at a rate the reader never reaches. */
export const createFeedKey = (db: string, env: NodeJS.ProcessEnv = {}) =>
  createKey(db, 'feed benchmark', 1_000_000, env, ['changes:read']);

/** One reader reads every event from the oldest kept to the newest, one page after another. */
export async function measureFeed(origin: string, token: string): Promise<FeedRun> {
  const headers = { authorization: `Bearer ${token}` };
  let after = '';
  let events = 0;
  let pages = 0;
  const started = performance.now();
  for (;;) {
    const response = await fetch(`${origin}/v1/changes?limit=1000${after ? `&after=${after}` : ''}`, {
      headers,
    });
    if (!response.ok) throw new Error(`GET /v1/changes: ${response.status} ${await response.text()}`);
    const page = (await response.json()) as { data: unknown[]; next: string; has_more: boolean };
    events += page.data.length;
    pages++;
    after = page.next;
    if (!page.has_more) break;
  }
  const elapsed = (performance.now() - started) / 1000;
  return { events, pages, seconds: elapsed, perSecond: events / elapsed };
}

/** The feed's row: events read, pages, time and events a second, per run. */
export function feedTable(runs: FeedRun[]): string {
  const rows = runs.map((run, i) => [
    `run ${i + 1}`,
    int(run.events),
    int(run.pages),
    `${run.seconds.toFixed(2)} s`,
    int(run.perSecond),
  ]);
  const header = ['feed, one reader from the start', 'events', 'pages', 'time', 'events/s (target ≥ 20,000)'];
  return table(header, rows, [1, 2, 3, 4]);
}
