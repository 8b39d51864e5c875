// GET /v1/changes: the feed of change events (contract §8), a page at a time, long-polling when asked.
// Not a lookup: it discloses no record, so it is rate-limited as any keyed request, with no quota or audit.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { CHANGE_EVENT_TYPES } from '../changes/events.js';
import { renderEvent } from '../changes/render.js';
import { ProblemError } from '../errors.js';
import { DEFAULT_FEED_LIMIT, MAX_FEED_LIMIT, MAX_FEED_WAIT, parseFeedQuery } from '../feed/query.js';
import { nextCursor, readFeed } from '../feed/read.js';
import type { FeedTally } from '../metrics.js';
import { headers, KEYED, responseRef, schemaRef } from '../openapi/components.js';
import type { Responses } from '../openapi/document.js';
import type { ChangeStore } from '../store/changes.js';
import type { WatchlistStore } from '../store/watchlists.js';

export interface ChangesDeps {
  changes: ChangeStore;
  /** Answers whether a key owns a watchlist and which ids it watches (`watchlist=`). */
  watchlists: WatchlistStore;
  feed: FeedTally;
}

const DESCRIPTION = `Every change to the store of record as an event, in commit order: records created, updated
(with the top-level fields that changed) and removed (with the reason), and the derived \`person.job_changed\`
and \`person.title_changed\`. Start without \`after\`, then give each page's \`next\`: no event is skipped or
repeated. \`has_more\` says more are there now; with \`wait\` an empty page is held until an event arrives
(or the wait is over). With \`watchlist\`, only the events of the people and companies one of the key's
watchlists watches (a watched company: its own events and everyone joining, leaving or changing title at
it); such a page reads at most 10,000 events of the log, so it may be short, or empty, with \`has_more\`.
Another key's watchlist is a 404. A cursor older than the change log keeps (\`ENRICH_CHANGES_RETENTION_DAYS\`) is a 410.
Events carry no e-mail address or phone number. Needs \`changes:read\`; rate-limited like lookups; costs
nothing against the monthly quota.`;

const querystring = Type.Object(
  {
    after: Type.Optional(
      Type.String({ description: 'The `next` of the previous page; omitted: from the oldest event kept' }),
    ),
    types: Type.Optional(
      Type.String({
        description: `Only these event types, comma-separated: ${CHANGE_EVENT_TYPES.join(', ')}`,
        examples: ['person.job_changed,person.title_changed'],
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_FEED_LIMIT,
        default: DEFAULT_FEED_LIMIT,
        description: 'Events per page',
      }),
    ),
    watchlist: Type.Optional(
      Type.String({
        minLength: 1,
        description: "Only the events one of the key's watchlists watches (its id)",
        examples: ['wl_4hT9xQ2mPz8a'],
      }),
    ),
    wait: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_FEED_WAIT,
        default: 0,
        description: 'Seconds to hold an empty page open, answering as soon as an event arrives',
      }),
    ),
  },
  { additionalProperties: false },
);

const responses: Responses = {
  200: {
    description:
      'The events after the cursor (possibly none), the cursor of the next page, and whether more are there',
    headers: headers(...KEYED),
    content: { 'application/json': { schema: schemaRef('ChangesPage') } },
  },
  400: responseRef('BadRequest'),
  401: responseRef('Unauthorized'),
  403: responseRef('Forbidden'),
  404: responseRef('WatchlistNotFound'),
  410: responseRef('Gone'),
  429: responseRef('RateLimited'),
  '4XX': responseRef('UnreadableRequest'),
  500: responseRef('InternalError'),
  503: responseRef('Unavailable'),
};

export function registerChanges(app: FastifyInstance, { changes, watchlists, feed }: ChangesDeps) {
  // Long polls end, with what they have, as soon as the server starts closing.
  const closing = new AbortController();
  app.addHook('preClose', (done) => {
    closing.abort();
    done();
  });
  app.keyedRoute(
    {
      method: 'GET',
      url: '/v1/changes',
      scopes: ['changes:read'],
      // Our own parser names the parameter at fault, as the lookups' does.
      validatorCompiler: () => () => true,
      schema: {
        operationId: 'listChanges',
        summary: 'The change events after a cursor, in commit order',
        description: DESCRIPTION,
        tags: ['changes'],
        querystring,
        'x-responses': responses,
      },
    },
    async (request, reply, { key }) => {
      const query = parseFeedQuery(request.query as Record<string, unknown>);
      if (
        query.watchlist !== undefined &&
        (await watchlists.getWatchlist(key.id, query.watchlist)) === undefined
      ) {
        throw new ProblemError(
          'not_found',
          `This key has no watchlist ${JSON.stringify(query.watchlist.slice(0, 64))}.`,
        );
      }
      const page = await readFeed(changes, query, closing.signal, watchlists);
      feed.served(page.events.length, page.events.at(-1)?.at);
      reply.type('application/json; charset=utf-8');
      return JSON.stringify({
        data: page.events.map(renderEvent),
        next: nextCursor(page),
        has_more: page.hasMore,
      });
    },
  );
}
