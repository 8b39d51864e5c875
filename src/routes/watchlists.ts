// /v1/watchlists: a key's watchlists and their entries (contract §8). A key sees only its own: another key's
// id answers 404. Entries are resolved as lookups (src/watchlists/entries.ts), charged one token a request.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { mintWatchlistId } from '../auth/tokens.js';
import { ProblemError } from '../errors.js';
import { MAX_JSON_BYTES, NDJSON } from '../http/bulk-path.js';
import { releaseBodyDeadline } from '../http/request-deadline.js';
import { answerEntries, type EntryStore, streamEntries } from '../http/watch-entries.js';
import { invalidBody } from '../lookup/bulk-request.js';
import {
  headers,
  KEYED,
  keyedProblems,
  type ResponseName,
  responseRef,
  schemaRef,
} from '../openapi/components.js';
import type { Responses } from '../openapi/document.js';
import { MAX_WATCHLIST_NAME } from '../schemas/watchlists.js';
import type { Watchlist, WatchlistStore } from '../store/watchlists.js';
import { entryId, entrySeq, parseEntriesBody } from '../watchlists/entries.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const PAGE_DEFAULT = 100;
const PAGE_MAX = 1000;

/** An operation's responses: its own, the problems it names by status, and those every keyed route may give. */
function responses(own: Responses, named: Record<number, ResponseName> = {}): Responses {
  return {
    ...own,
    ...Object.fromEntries(Object.entries(named).map(([status, name]) => [status, responseRef(name)])),
    ...keyedProblems(),
  };
}

const ok = (status: number, description: string, schema?: string) => ({
  [status]: {
    description,
    headers: headers(...KEYED),
    ...(schema ? { content: { 'application/json': { schema: schemaRef(schema) } } } : {}),
  },
});

const watchlistParams = Type.Object({ id: Type.String({ description: "The watchlist's id" }) });

/** A watchlist as answered. */
const shown = ({ id, name, size }: Pick<Watchlist, 'id' | 'name' | 'size'>) => ({ id, name, size });

/** The key's own watchlist of the request's `id`, or the 404 another key's gets too. */
async function ownWatchlist(
  store: WatchlistStore,
  keyId: string,
  request: FastifyRequest,
): Promise<Watchlist> {
  const { id } = request.params as { id: string };
  const watchlist = await store.getWatchlist(keyId, id);
  if (watchlist === undefined) {
    throw new ProblemError('not_found', `This key has no watchlist ${JSON.stringify(id.slice(0, 64))}.`);
  }
  return watchlist;
}

/** A watchlist's name from a create request's body: 1 to 200 characters, not only white space. */
function nameOf(body: unknown): string {
  const name = (body as { name?: unknown } | null)?.name;
  // Counted in characters (code points), as the document's maxLength counts them.
  if (typeof name !== 'string' || name.trim() === '' || [...name].length > MAX_WATCHLIST_NAME) {
    throw invalidBody('$.name', `name must be a string of 1 to ${MAX_WATCHLIST_NAME} characters.`);
  }
  const extra = Object.keys(body as object).find((member) => member !== 'name');
  if (extra !== undefined) throw invalidBody('$', `unknown member ${JSON.stringify(extra.slice(0, 64))}.`);
  return name;
}

/** `limit` and `after` of an entries listing. */
function pageOf(query: Record<string, unknown>): { after: number; limit: number } {
  for (const name of Object.keys(query)) {
    if (name !== 'after' && name !== 'limit') {
      throw new ProblemError(
        'unknown_parameter',
        `Unknown parameter "${name.slice(0, 64)}"; accepted: after, limit.`,
        {
          parameter: name.slice(0, 64),
          accepted: ['after', 'limit'],
        },
      );
    }
  }
  const { after, limit } = query;
  const seq = after === undefined ? 0 : typeof after === 'string' ? entrySeq(after) : undefined;
  if (seq === undefined) {
    throw new ProblemError('invalid_parameter', 'after must be an entry id (`next` of the page before).', {
      parameter: 'after',
    });
  }
  const given = limit === undefined ? String(PAGE_DEFAULT) : limit;
  const size = typeof given === 'string' && /^[0-9]{1,4}$/.test(given) ? Number(given) : 0;
  if (size < 1 || size > PAGE_MAX) {
    throw new ProblemError('invalid_parameter', `limit must be a whole number from 1 to ${PAGE_MAX}.`, {
      parameter: 'limit',
    });
  }
  return { after: seq, limit: size };
}

export function registerWatchlists(app: FastifyInstance, store: EntryStore) {
  // Our own checks name what is wrong more plainly than schema validation; the schemas document.
  const unchecked = { validatorCompiler: () => () => true };

  app.keyedRoute(
    {
      method: 'POST',
      url: '/v1/watchlists',
      scopes: ['changes:write'],
      ...unchecked,
      schema: {
        operationId: 'createWatchlist',
        summary: 'Create a watchlist, empty',
        tags: ['watchlists'],
        body: Type.Ref('NewWatchlist'),
        'x-responses': responses(ok(201, 'The watchlist, empty', 'Watchlist'), {
          400: 'WatchlistBadRequest',
        }),
      },
    },
    async (request, reply, { key }) => {
      const watchlist = { id: mintWatchlistId(), key_id: key.id, name: nameOf(request.body), size: 0 };
      await store.createWatchlist({ ...watchlist, created_at: new Date().toISOString() });
      reply.code(201);
      return shown(watchlist);
    },
  );

  app.keyedRoute(
    {
      method: 'GET',
      url: '/v1/watchlists',
      scopes: ['changes:read'],
      schema: {
        operationId: 'listWatchlists',
        summary: "The key's watchlists, oldest first",
        tags: ['watchlists'],
        'x-responses': responses(ok(200, "The key's watchlists", 'WatchlistList')),
      },
    },
    async (_request, _reply, { key }) => ({ data: (await store.listWatchlists(key.id)).map(shown) }),
  );

  app.keyedRoute(
    {
      method: 'GET',
      url: '/v1/watchlists/:id',
      scopes: ['changes:read'],
      ...unchecked,
      schema: {
        operationId: 'getWatchlist',
        summary: 'One of the key’s watchlists: its name and size',
        tags: ['watchlists'],
        params: watchlistParams,
        'x-responses': responses(ok(200, 'The watchlist', 'Watchlist'), { 404: 'WatchlistNotFound' }),
      },
    },
    async (request, _reply, { key }) => shown(await ownWatchlist(store, key.id, request)),
  );

  app.keyedRoute(
    {
      method: 'DELETE',
      url: '/v1/watchlists/:id',
      scopes: ['changes:write'],
      ...unchecked,
      schema: {
        operationId: 'deleteWatchlist',
        summary: 'Delete a watchlist and its entries',
        tags: ['watchlists'],
        params: watchlistParams,
        'x-responses': responses(ok(204, 'Deleted'), { 404: 'WatchlistNotFound' }),
      },
    },
    async (request, reply, { key }) => {
      const { id } = await ownWatchlist(store, key.id, request);
      await store.deleteWatchlist(key.id, id);
      return reply.code(204).send();
    },
  );

  app.register(async (scope) => {
    // An NDJSON body is read by the route itself, line by line as it arrives.
    scope.addContentTypeParser(NDJSON, (_request, _payload, done) => done(null));
    scope.keyedRoute(
      {
        method: 'POST',
        url: '/v1/watchlists/:id/entries',
        scopes: ['changes:write'],
        bodyLimit: MAX_JSON_BYTES,
        ...unchecked,
        schema: {
          operationId: 'addWatchlistEntries',
          summary: 'Watch people and companies, found by any lookup identifier',
          description:
            'Each entry is resolved as the lookup of the same parameters resolves it (`GET /v1/people` or ' +
            '`GET /v1/company`): found, it is watched (`watching`, with the id); otherwise its result says ' +
            'why, as a bulk item does (`not_found`, `ambiguous`, `invalid`). A company entry watches the ' +
            "company's own events and everyone joining or leaving it. An entry already in the watchlist stays " +
            'where it is and takes the new `ref`. Up to 1,000 entries as JSON; as `application/x-ndjson` (one ' +
            'entry per line) up to 1,000,000, answered a result line per entry as they are added. Adding costs ' +
            "one token of the key's rate per request, and is neither charged against the quota nor audited " +
            'as lookups: an entry discloses only an id.',
          tags: ['watchlists'],
          params: watchlistParams,
          body: {
            content: {
              'application/json': { schema: schemaRef('WatchEntriesRequest') },
              [NDJSON]: { schema: schemaRef('WatchEntryRequest') },
            },
          },
          'x-responses': responses(
            {
              200: {
                description:
                  'Every entry answered: as one JSON document, or (to an NDJSON body) one result per line, ' +
                  'ending with an error line if the stream stopped early',
                headers: headers(...KEYED),
                content: {
                  'application/json': { schema: schemaRef('WatchEntriesResponse') },
                  [NDJSON]: {
                    schema: { oneOf: [schemaRef('WatchEntryResult'), schemaRef('BulkStreamError')] },
                  },
                },
              },
            },
            { 400: 'WatchlistBadRequest', 404: 'WatchlistNotFound', 413: 'WatchlistTooLarge' },
          ),
        },
      },
      async (request, reply, { key }) => {
        const watchlist = await ownWatchlist(store, key.id, request);
        const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (type === NDJSON) {
          // Admitted with a live key: the stream is read at the pace it is answered, not by the body's deadline.
          releaseBodyDeadline(request.raw);
          reply.type(`${NDJSON}; charset=utf-8`);
          return streamEntries(store, watchlist, request);
        }
        const entries = parseEntriesBody(request.body);
        reply.type(JSON_TYPE);
        return answerEntries(store, watchlist, entries, request.id);
      },
    );
  });

  app.keyedRoute(
    {
      method: 'GET',
      url: '/v1/watchlists/:id/entries',
      scopes: ['changes:read'],
      ...unchecked,
      schema: {
        operationId: 'listWatchlistEntries',
        summary: "A watchlist's entries, a page at a time, in the order first added",
        tags: ['watchlists'],
        params: watchlistParams,
        querystring: Type.Object({
          after: Type.Optional(Type.String({ description: '`next` of the page before; none for the first' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: PAGE_DEFAULT })),
        }),
        'x-responses': responses(ok(200, 'A page of entries', 'WatchEntryPage'), {
          400: 'WatchlistBadRequest',
          404: 'WatchlistNotFound',
        }),
      },
    },
    async (request, _reply, { key }) => {
      const watchlist = await ownWatchlist(store, key.id, request);
      const { after, limit } = pageOf(request.query as Record<string, unknown>);
      const rows = await store.listWatchEntries(watchlist.id, after, limit + 1);
      const page = rows.slice(0, limit);
      const data = page.map(({ seq, kind, record_id, ref }) => ({
        id: entryId(seq),
        kind,
        [`${kind}_id`]: record_id,
        ref,
      }));
      return { data, next: data.at(-1)?.id ?? null, has_more: rows.length > limit };
    },
  );

  app.keyedRoute(
    {
      method: 'DELETE',
      url: '/v1/watchlists/:id/entries/:entry_id',
      scopes: ['changes:write'],
      ...unchecked,
      schema: {
        operationId: 'deleteWatchlistEntry',
        summary: 'Stop watching one entry',
        tags: ['watchlists'],
        params: Type.Object({
          id: Type.String({ description: "The watchlist's id" }),
          entry_id: Type.String({ description: "The entry's id, as listed" }),
        }),
        'x-responses': responses(ok(204, 'Deleted'), { 404: 'WatchlistNotFound' }),
      },
    },
    async (request, reply, { key }) => {
      const watchlist = await ownWatchlist(store, key.id, request);
      const seq = entrySeq((request.params as { entry_id: string }).entry_id);
      if (seq === undefined || !(await store.deleteWatchEntry(watchlist.id, seq))) {
        throw new ProblemError('not_found', 'This watchlist has no entry of that id.');
      }
      return reply.code(204).send();
    },
  );
}
