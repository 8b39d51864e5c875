// enrich changes [--after C] [--types …] [--limit N] [--follow] [--json] [--url URL --token T]: the feed of
// change events, of the local store or through a server, for operators: one line per event (or NDJSON of the
// events as the API lists them), oldest first, and the cursor to resume from.
import type { Command } from 'commander';
import { changeLine } from '../changes/describe.js';
import type { ChangeEvent } from '../changes/events.js';
import { decodeCursor, encodeCursor, renderEvent } from '../changes/render.js';
import { ProblemError } from '../errors.js';
import { type FeedQuery, MAX_FEED_LIMIT, MAX_FEED_WAIT, parseFeedQuery } from '../feed/query.js';
import { readFeed } from '../feed/read.js';
import type { ChangeStore } from '../store/changes.js';
import { type PageRequest, type PrintedPage, remotePage } from './changes-remote.js';
import { requireLocalStore, serverOf, UsageError, wholeNumber, withOpenStore, withStore } from './options.js';

interface ChangesOptions {
  db?: string;
  url?: string;
  token?: string;
  after?: string;
  types?: string;
  limit?: number;
  follow?: boolean;
  json?: boolean;
}

type PageReader = (request: PageRequest) => Promise<PrintedPage | undefined>;

export function registerChanges(program: Command) {
  withStore(program.command('changes'))
    .description('the change events of the store, oldest first: what imports, refreshes and deletes changed')
    .option('--after <cursor>', 'only events after this cursor (the "next" a previous run printed)')
    .option('--types <list>', 'only these event types, comma-separated (person.job_changed,…)')
    .option('--limit <n>', 'at most this many events', wholeNumber(1))
    .option('--follow', 'keep printing events as they are committed, until interrupted (Ctrl-C)')
    .option('--json', 'print NDJSON: one event a line, as GET /v1/changes lists it')
    .option('--url <url>', "read this server's feed (default: $ENRICH_URL, unless --db is given)")
    .option('--token <token>', 'bearer token for --url, with the scope changes:read (default: $ENRICH_TOKEN)')
    .action(async (opts: ChangesOptions) => {
      const query = feedQuery(opts);
      const server = serverOf(opts);
      // Ctrl-C ends a follow with what was printed, and the cursor to resume from.
      const stop = new AbortController();
      const interrupted = () => stop.abort();
      process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
      try {
        if (server) {
          await printChanges(
            opts,
            (request) => remotePage(server.url, server.token, request, stop.signal),
            stop,
          );
          return;
        }
        requireLocalStore(opts);
        await withOpenStore(opts, (store) =>
          printChanges(opts, localReader(store, query, stop.signal), stop),
        );
      } catch (error) {
        if (error instanceof ProblemError) throw new UsageError(error.detail);
        throw error;
      } finally {
        process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
      }
    });
}

/** The options as the feed's own parameters, refused as the API refuses them. */
function feedQuery(opts: ChangesOptions): FeedQuery {
  const query: Record<string, string> = {};
  if (opts.after !== undefined) query.after = opts.after;
  if (opts.types !== undefined) query.types = opts.types;
  try {
    return parseFeedQuery(query);
  } catch (error) {
    if (error instanceof ProblemError) throw new UsageError(`--${error.detail}`);
    throw error;
  }
}

/** Pages of the local store's log, as the API renders them. */
const localReader =
  (log: ChangeStore, query: FeedQuery, stop: AbortSignal): PageReader =>
  async ({ after, limit, wait }) => {
    const from = after === undefined ? undefined : decodeCursor(after);
    const page = await readFeed(log, { ...query, after: from, limit, wait }, stop);
    return { events: page.events.map(renderEvent), next: encodeCursor(page.next), hasMore: page.hasMore };
  };

/** Prints pages until caught up (or, following, until stopped) or `--limit` events; then where to resume. */
async function printChanges(opts: ChangesOptions, read: PageReader, stop: AbortController): Promise<void> {
  const line = opts.json
    ? (event: ChangeEvent) => `${JSON.stringify(event)}\n`
    : (event: ChangeEvent) => `${changeLine(event)}\n`;
  let left = opts.limit ?? Number.POSITIVE_INFINITY;
  let after = opts.after;
  while (left > 0 && !stop.signal.aborted) {
    const limit = Math.min(left, MAX_FEED_LIMIT);
    const wait = opts.follow ? MAX_FEED_WAIT : 0;
    const page = await read({ after, types: opts.types, limit, wait });
    if (page === undefined) break;
    if (page.events.length > 0) process.stdout.write(page.events.map(line).join(''));
    left -= page.events.length;
    after = page.next;
    if (!page.hasMore && !opts.follow) break;
  }
  if (after !== undefined) process.stderr.write(`next: ${after}\n`);
}
