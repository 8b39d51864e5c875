// A page of the feed: the events after a cursor, in commit order, waiting for one when asked (long poll).
import type { LoggedEvent } from '../changes/events.js';
import { encodeCursor, eventId } from '../changes/render.js';
import { readWatched, type WatchedLookup } from '../changes/watch.js';
import { ProblemError } from '../errors.js';
import type { ChangeStore } from '../store/changes.js';
import type { FeedQuery } from './query.js';

/** A page as read: its events, the sequence number the next page starts after, whether more are there now. */
export interface FeedPage {
  events: LoggedEvent[];
  next: number;
  hasMore: boolean;
}

/**
 * One read of the log. `next` is the last event's seq; when the page is not full it is the newest event
 * that was committed before the read began, so that a reader filtering by type does not scan again what
 * it has passed (every seq up to the newest visible one is committed: writers append in seq order).
 */
async function readOnce(changes: ChangeStore, query: FeedQuery, watched?: WatchedLookup): Promise<FeedPage> {
  const { after, limit, types, watchlist } = query;
  const bounds = await changes.changeBounds();
  // A cursor just before the oldest event kept has lost nothing; one older has.
  if (after !== undefined && bounds.first > 0 && after < bounds.first - 1) {
    throw new ProblemError(
      'gone',
      'The cursor is older than the change log keeps (ENRICH_CHANGES_RETENTION_DAYS): the events after it have ' +
        'been pruned. Read again without `after` to start at the oldest event kept.',
      { oldest_event: eventId(bounds.first) },
    );
  }
  if (watchlist !== undefined && watched !== undefined) {
    // Read through the log a page at a time, keeping the watched events: a bounded scan per request.
    const read = (from: number, n: number) => changes.readChanges(from, n, types);
    const page = await readWatched(read, watched, watchlist, after ?? 0, limit);
    return {
      events: page.events,
      next: page.more ? page.last : Math.max(page.last, bounds.last),
      hasMore: page.more,
    };
  }
  const read = await changes.readChanges(after ?? 0, limit + 1, types);
  const hasMore = read.length > limit;
  const events = hasMore ? read.slice(0, limit) : read;
  const last = events.at(-1)?.seq ?? after ?? 0;
  return { events, next: hasMore ? last : Math.max(last, bounds.last), hasMore };
}

/**
 * Resolves after `ms`, when `wake` is called, or when `stop` aborts, whichever comes first; always cleans up.
 */
function sleep(ms: number, stop: AbortSignal, onWake: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop.addEventListener('abort', done, { once: true });
    onWake(done);
  });
}

/**
 * The page `query` asks for. With `wait`, an empty page is read again as soon as the log is written (the
 * store's watchChanges wakes it) until an event comes, the wait is over or `stop` aborts (the server is
 * closing): then the empty page, whose `next` still moves past events of other types. A query naming a
 * watchlist needs `watched`, which answers which ids it holds (the route has checked the key owns it).
 */
export async function readFeed(
  changes: ChangeStore,
  query: FeedQuery,
  stop: AbortSignal,
  watched?: WatchedLookup,
): Promise<FeedPage> {
  if (query.wait === 0) return readOnce(changes, query, watched);
  const deadline = Date.now() + query.wait * 1000;
  // Watched before the first read, so that an event committed between the read and the wait wakes it.
  let woken = false;
  let wake: (() => void) | undefined;
  const unwatch = changes.watchChanges(() => {
    woken = true;
    wake?.();
  });
  let read = query;
  try {
    for (;;) {
      woken = false;
      const page = await readOnce(changes, read, watched);
      const left = deadline - Date.now();
      if (page.events.length > 0 || left <= 0 || stop.aborted) return page;
      // Nothing of the types asked for up to page.next: the next read starts there.
      read = { ...read, after: page.next };
      if (!woken) {
        await sleep(left, stop, (done) => {
          wake = done;
        });
      }
      wake = undefined;
    }
  } finally {
    unwatch();
  }
}

/** The cursor a page's `next` is. */
export const nextCursor = (page: FeedPage): string => encodeCursor(page.next);
