// /v1/lists (contract §9, Lists): a CSV or NDJSON list uploaded, matched in the background by `enrich match`'s
// engine, its progress read and its result downloaded. A key sees only its own lists (another key's id is a
// 404); a list of people needs people:read, of companies company:read.
import { createReadStream } from 'node:fs';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireScopes } from '../auth/authenticate.js';
import { mintListId } from '../auth/tokens.js';
import { ProblemError } from '../errors.js';
import { releaseBodyDeadline } from '../http/request-deadline.js';
import { operationOf } from '../ingest/match/index.js';
import type { ListFiles } from '../lists/files.js';
import { checkOptions, inspectList, type ListOptions, RESULT_DAYS } from '../lists/options.js';
import { headers, KEYED, keyedProblems, responseRef, schemaRef } from '../openapi/components.js';
import type { ListJobView } from '../schemas/lists.js';
import type { ApiKey } from '../store/keys.js';
import type { ListJob, ListStore } from '../store/lists.js';
import type { Entity } from '../vocabulary/entities.js';
import type { Scope } from '../vocabulary/operations.js';

const FORMATS: Record<string, 'csv' | 'ndjson'> = { 'text/csv': 'csv', 'application/x-ndjson': 'ndjson' };
const RESULT_TYPES = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson; charset=utf-8' };
const EITHER: Scope[] = ['people:read', 'company:read'];
const PAGE_DEFAULT = 20;
const PAGE_MAX = 100;

export interface ListRoutesDeps {
  store: ListStore;
  files: ListFiles;
  /** Tells the worker a list is waiting. */
  wake(): void;
}

/** A job as answered, with the time left at its pace so far. */
export function listView(job: ListJob, now = Date.now()): ListJobView {
  let eta: number | null = null;
  if (job.status === 'running' && job.rows !== null && job.processed > 0 && job.started_at !== null) {
    const perRow = Math.max(1, now - Date.parse(job.started_at)) / job.processed;
    eta = Math.round(((job.rows - job.processed) * perRow) / 1000);
  }
  return {
    id: job.id,
    entity: job.entity,
    format: job.format,
    status: job.status,
    mapping: JSON.parse(job.mapping),
    rows: job.rows,
    processed: job.processed,
    matched: job.matched,
    not_found: job.not_found,
    ambiguous: job.ambiguous,
    invalid: job.invalid,
    quota_exceeded: job.quota_exceeded,
    eta_seconds: eta,
    problem: job.problem === null ? null : JSON.parse(job.problem),
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    expires_at: job.expires_at,
  };
}

function unknownParameter(name: string, accepted: string[]): ProblemError {
  return new ProblemError(
    'unknown_parameter',
    `Unknown parameter "${name.slice(0, 64)}"; accepted: ${accepted.join(', ')}.`,
    { parameter: name.slice(0, 64), accepted },
  );
}

/** The entity and options of an upload's query: `entity`, `map` (repeatable), `fields`. */
function uploadQuery(query: Record<string, unknown>): { entity: Entity; options: ListOptions } {
  const accepted = ['entity', 'map', 'fields'];
  for (const name of Object.keys(query)) if (!accepted.includes(name)) throw unknownParameter(name, accepted);
  const { entity, map, fields } = query;
  if (entity !== 'people' && entity !== 'companies') {
    throw new ProblemError('invalid_parameter', 'entity must be people or companies.', {
      parameter: 'entity',
    });
  }
  const maps = map === undefined ? [] : Array.isArray(map) ? map : [map];
  if (maps.some((given) => typeof given !== 'string')) {
    throw new ProblemError('invalid_parameter', 'map must be COLUMN=PARAM.', { parameter: 'map' });
  }
  if (fields !== undefined && typeof fields !== 'string') {
    throw new ProblemError('invalid_parameter', 'fields is given more than once.', { parameter: 'fields' });
  }
  return { entity, options: { map: maps as string[], fields: fields ?? null } };
}

const listParams = Type.Object({ id: Type.String({ description: "The list's id" }) });

const ok = (status: number, description: string, content?: Record<string, unknown>) => ({
  [status]: { description, headers: headers(...KEYED), ...(content ? { content } : {}) },
});
const json = (name: string) => ({ 'application/json': { schema: schemaRef(name) } });

export function registerLists(app: FastifyInstance, deps: ListRoutesDeps): void {
  const { store, files } = deps;
  // Our own checks name what is wrong more plainly than schema validation; the schemas document.
  const unchecked = { validatorCompiler: () => () => true };

  /** The key's own list of the request's `id` (another key's is a 404), for a key with its entity's scope. */
  async function ownList(key: ApiKey, request: FastifyRequest): Promise<ListJob> {
    const { id } = request.params as { id: string };
    const job = await store.getList(key.id, id);
    if (job === undefined) {
      throw new ProblemError('not_found', `This key has no list ${JSON.stringify(id.slice(0, 64))}.`);
    }
    requireScopes(key, [operationOf(job.entity).scope]);
    return job;
  }

  app.register(async (scope) => {
    // The upload is streamed to its file by the route itself, whatever its type (an unknown one is a 415).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));

    scope.keyedRoute(
      {
        method: 'POST',
        url: '/v1/lists',
        scopes: EITHER,
        ...unchecked,
        schema: {
          operationId: 'createList',
          summary: 'Upload a list to match in the background',
          description:
            'A CSV (`text/csv`, a header row; comma, semicolon or tab) or NDJSON (`application/x-ndjson`) list ' +
            'of up to 1,000,000 rows, gzip or not, matched as `enrich match` matches it: the same column mapping ' +
            '(`map` as its `--map`, `fields` as its `--fields`) and the same output. Each row is charged and ' +
            "audited as a bulk item, paced at the key's rate; a used-up quota stops the job (`failed`, " +
            `problem \`quota_exceeded\`). The job and its result are kept ${RESULT_DAYS} days after it ends.`,
          tags: ['lists'],
          querystring: Type.Object({
            entity: Type.Union([Type.Literal('people'), Type.Literal('companies')]),
            map: Type.Optional(
              Type.Array(Type.String(), {
                description: 'COLUMN=PARAM: match by this column as this parameter; COLUMN= leaves it unused',
              }),
            ),
            fields: Type.Optional(Type.String({ description: 'Record fields to add, comma-separated' })),
          }),
          body: {
            content: {
              'text/csv': { schema: { type: 'string' } },
              // An NDJSON body's schema is that of each line, as the bulk routes' streams have it.
              'application/x-ndjson': { schema: schemaRef('ListRow') },
            },
          },
          'x-responses': {
            ...ok(202, 'The job, queued', json('ListJob')),
            400: responseRef('ListBadRequest'),
            413: responseRef('PayloadTooLarge'),
            415: responseRef('BulkUnsupportedMediaType'),
            ...keyedProblems(),
          },
        },
      },
      async (request, reply, { key }) => {
        const { entity, options } = uploadQuery(request.query as Record<string, unknown>);
        requireScopes(key, [operationOf(entity).scope]);
        const type = String(request.headers['content-type'] ?? '')
          .split(';')[0]!
          .trim()
          .toLowerCase();
        const format = FORMATS[type];
        if (format === undefined) {
          throw new ProblemError(
            'unsupported_media_type',
            'Send the list as text/csv or application/x-ndjson.',
          );
        }
        await checkOptions(entity, options);
        // Admitted: the upload may take as long as its size needs.
        releaseBodyDeadline(request.raw);
        const id = mintListId();
        const bytes = await files.receive(id, request.raw);
        let mapping: Awaited<ReturnType<typeof inspectList>>;
        try {
          if (bytes === 0) throw new ProblemError('invalid_body', 'The body is empty: send the list.');
          mapping = await inspectList(files.upload(id), entity, options, format);
        } catch (error) {
          await files.remove(id);
          throw error;
        }
        const now = Date.now();
        const job = {
          id,
          key_id: key.id,
          entity,
          format,
          options: JSON.stringify(options),
          mapping: JSON.stringify(mapping),
          created_at: new Date(now).toISOString(),
          expires_at: new Date(now + RESULT_DAYS * 86_400_000).toISOString(),
        };
        await store.createList(job);
        deps.wake();
        reply.code(202).header('location', `/v1/lists/${id}`);
        return listView((await store.getList(key.id, id))!);
      },
    );

    scope.keyedRoute(
      {
        method: 'GET',
        url: '/v1/lists',
        scopes: EITHER,
        ...unchecked,
        schema: {
          operationId: 'listLists',
          summary: "The key's lists, newest first",
          tags: ['lists'],
          querystring: Type.Object({
            after: Type.Optional(Type.String({ description: '`next` of the page before' })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: PAGE_DEFAULT })),
          }),
          'x-responses': { ...ok(200, "A page of the key's lists", json('ListPage')), ...keyedProblems() },
        },
      },
      async (request, _reply, { key }) => {
        const query = request.query as Record<string, unknown>;
        for (const name of Object.keys(query))
          if (name !== 'after' && name !== 'limit') throw unknownParameter(name, ['after', 'limit']);
        const given = query.limit ?? String(PAGE_DEFAULT);
        const limit = typeof given === 'string' && /^[0-9]{1,3}$/.test(given) ? Number(given) : 0;
        if (limit < 1 || limit > PAGE_MAX) {
          throw new ProblemError('invalid_parameter', `limit must be a whole number from 1 to ${PAGE_MAX}.`, {
            parameter: 'limit',
          });
        }
        const after = typeof query.after === 'string' ? query.after : undefined;
        const jobs = await store.listLists(key.id, { after, limit: limit + 1 });
        const page = jobs.slice(0, limit);
        const hasMore = jobs.length > limit;
        return {
          data: page.map((job) => listView(job)),
          next: hasMore ? page.at(-1)!.id : null,
          has_more: hasMore,
        };
      },
    );

    scope.keyedRoute(
      {
        method: 'GET',
        url: '/v1/lists/:id',
        scopes: EITHER,
        ...unchecked,
        schema: {
          operationId: 'getList',
          summary: "A list's progress",
          tags: ['lists'],
          params: listParams,
          'x-responses': {
            ...ok(200, 'The job', json('ListJob')),
            404: responseRef('ListNotFound'),
            ...keyedProblems(),
          },
        },
      },
      async (request, _reply, { key }) => listView(await ownList(key, request)),
    );

    scope.keyedRoute(
      {
        method: 'GET',
        url: '/v1/lists/:id/result',
        scopes: EITHER,
        ...unchecked,
        schema: {
          operationId: 'listResult',
          summary: 'A done list: the file `enrich match` writes for it',
          tags: ['lists'],
          params: listParams,
          'x-responses': {
            ...ok(200, 'The list with each row’s match: CSV for CSV, NDJSON for NDJSON', {
              'text/csv': { schema: { type: 'string' } },
              'application/x-ndjson': { schema: schemaRef('ListResultRow') },
            }),
            404: responseRef('ListNotFound'),
            409: responseRef('ListNotReady'),
            ...keyedProblems(),
          },
        },
      },
      async (request, reply, { key }) => {
        const job = await ownList(key, request);
        if (job.status !== 'done') {
          throw new ProblemError(
            'list_not_ready',
            `The list ${job.id} is ${job.status}: its result is ready once it is done.`,
            { list_status: job.status },
          );
        }
        const extension = job.format === 'csv' ? 'csv' : 'ndjson';
        return reply
          .type(RESULT_TYPES[job.format])
          .header('content-disposition', `attachment; filename="${job.id}.${extension}"`)
          .send(createReadStream(files.result(job.id)));
      },
    );

    scope.keyedRoute(
      {
        method: 'DELETE',
        url: '/v1/lists/:id',
        scopes: EITHER,
        ...unchecked,
        schema: {
          operationId: 'deleteList',
          summary: 'Delete a list, its result, and stop it if it runs',
          tags: ['lists'],
          params: listParams,
          'x-responses': { ...ok(204, 'Deleted'), 404: responseRef('ListNotFound'), ...keyedProblems() },
        },
      },
      async (request, reply, { key }) => {
        const job = await ownList(key, request);
        await store.deleteList(key.id, job.id);
        await files.remove(job.id);
        return reply.code(204).send();
      },
    );
  });
}
