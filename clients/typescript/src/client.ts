// The Enrich client: typed lookups over openapi-fetch, with bounded retries, timeouts and typed errors.
import createFetchClient, { type Client } from 'openapi-fetch';
import { inChunks } from './chunks.js';
import { EnrichError, isProblem } from './errors.js';
import { fetchWithRetries } from './retry.js';
import type { paths } from './schema.js';
import type {
  AdminAuditQuery,
  AdminKeyReport,
  AdminSuppressionQuery,
  AdminUsageQuery,
  AuditPage,
  BulkAnswer,
  BulkItem,
  BulkSummary,
  ChangeEvent,
  ChangesFollow,
  ChangesPage,
  ChangesQuery,
  ChangeWebhook,
  Company,
  CompanyBulkResult,
  CompanyQuery,
  CompanySearchPage,
  CompanySearchRequest,
  CompanySearchResult,
  CreateWebhook,
  IssuedKey,
  KeyChanges,
  KeyCreate,
  KeyList,
  KeyRotate,
  ListJob,
  ListPage,
  PeopleBulkResult,
  PeopleSearchPage,
  PeopleSearchRequest,
  Person,
  PersonQuery,
  PersonSearchResult,
  StoreStats,
  SuppressionRequest,
  SuppressionResult,
  Usage,
  UsageSeriesPage,
  WatchEntriesResponse,
  WatchEntry,
  WatchEntryPage,
  WatchEntryRequest,
  WatchEntryResult,
  Watchlist,
  WebhookDeliveries,
  WebhookDeliveryQuery,
  WebhookEndpoint,
  WebhookSecret,
  WebhookTest,
} from './types.js';

export interface EnrichOptions {
  /** Where the service is, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** An API token (`enr_…`). */
  token: string;
  /** Retries after a 429 or 503, or a network failure, within the time left (default 2; 0: none). */
  retries?: number;
  /** Bound on each call, retries and their waits included (default 10 000 ms). */
  timeoutMs?: number;
  /** The fetch to send requests with (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

export interface CallOptions {
  /** Cancels the call: it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** This call's bound instead of the client's. */
  timeoutMs?: number;
}

export interface BulkOptions extends CallOptions {
  /** Fields of each record to return (dotted paths into objects); `id` always comes. Default: whole records. */
  fields?: string[];
  /** Items per request, at most the endpoint's 1,000 (the default). */
  chunkSize?: number;
  /** Requests in flight at once (default 2). */
  concurrency?: number;
}

/** The most items one bulk request may hold. */
export const MAX_BULK_ITEMS = 1000;

/** What an openapi-fetch call resolves to, whatever the operation. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** A call's abort signal and fetch: openapi-fetch passes both on to the request it builds. */
type CallInit = {
  signal: AbortSignal;
  fetch: (request: Request) => Promise<Response>;
};

/**
 * A client of one Enrich server.
 * @example
 * const enrich = new Enrich({ baseUrl: 'http://127.0.0.1:8080', token: process.env.ENRICH_TOKEN! });
 * const person = await enrich.people({ work_email: 'jane.citizen@acme.com.au' }); // Person | null
 */
export class Enrich {
  readonly #api: Client<paths>;
  readonly #retries: number;
  readonly #timeoutMs: number;
  readonly #fetch: (request: Request) => Promise<Response>;

  constructor(options: EnrichOptions) {
    this.#retries = options.retries ?? 2;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#fetch = options.fetch ?? ((request) => globalThis.fetch(request));
    this.#api = createFetchClient<paths>({
      baseUrl: options.baseUrl,
      headers: {
        authorization: `Bearer ${options.token}`,
        accept: 'application/json, application/problem+json',
      },
    });
  }

  /** The one person the identifiers find, or null when none matches. Throws EnrichError otherwise (a 409 too). */
  people(query: PersonQuery, options?: CallOptions): Promise<Person | null> {
    return orNull(this.#call((init) => this.#api.GET('/v1/people', { ...init, params: { query } }), options));
  }

  /** The one company the identifiers find, or null when none matches. Throws EnrichError otherwise. */
  company(query: CompanyQuery, options?: CallOptions): Promise<Company | null> {
    return orNull(
      this.#call((init) => this.#api.GET('/v1/company', { ...init, params: { query } }), options),
    );
  }

  /**
   * One page of people matching the filters and/or `q` (`POST /v1/people/search`); pass its `next` as
   * `cursor` for the following page.
   * @example const page = await enrich.searchPeople({ filters: { seniority: 'Manager', state: 'NSW' }, size: 50 });
   */
  searchPeople(body: PeopleSearchRequest, options?: CallOptions): Promise<PeopleSearchPage> {
    return this.#call((init) => this.#api.POST('/v1/people/search', { ...init, body }), options);
  }

  /**
   * Every person matching, page after page (one call each, with `body.size` results per page): a record
   * there throughout is yielded once, whatever is imported meanwhile.
   * @example for await (const person of enrich.searchPeopleAll({ q: 'finance manager' })) console.log(person.person_id);
   */
  searchPeopleAll(body: PeopleSearchRequest, options?: CallOptions): AsyncGenerator<PersonSearchResult> {
    return this.#pages((cursor) => this.searchPeople({ ...body, ...cursor }, options));
  }

  /** One page of companies matching the filters and/or `q` (`POST /v1/company/search`). */
  searchCompanies(body: CompanySearchRequest, options?: CallOptions): Promise<CompanySearchPage> {
    return this.#call((init) => this.#api.POST('/v1/company/search', { ...init, body }), options);
  }

  /** Every company matching, page after page. */
  searchCompaniesAll(body: CompanySearchRequest, options?: CallOptions): AsyncGenerator<CompanySearchResult> {
    return this.#pages((cursor) => this.searchCompanies({ ...body, ...cursor }, options));
  }

  /** The results of every page, following `next` from the page `body.cursor` names (or the first). */
  async *#pages<T>(
    page: (cursor: { cursor?: string }) => Promise<{ results: T[]; next: string | null }>,
  ): AsyncGenerator<T> {
    let cursor: { cursor?: string } = {};
    for (;;) {
      const { results, next } = await page(cursor);
      yield* results;
      if (next === null) return;
      cursor = { cursor: next };
    }
  }

  /**
   * Looks up many people: one request per chunk of `chunkSize` items (at most 1,000), a few at a time, each
   * bounded and retried like any call (`timeoutMs` applies to each). Resolves with every item's result in the
   * order given — the record, or the problem its single lookup would have answered — and the counts.
   * @example const { results } = await enrich.peopleBulk([{ params: { work_email: 'jane@acme.com.au' }, ref: 'crm-1' }]);
   */
  peopleBulk(
    items: ReadonlyArray<BulkItem<PersonQuery>>,
    options: BulkOptions = {},
  ): Promise<BulkAnswer<PeopleBulkResult>> {
    return this.#bulk<PersonQuery, PeopleBulkResult>(items, options, (body, init) =>
      jsonBulk(this.#api.POST('/v1/people/bulk', { ...init, body: body as never })),
    );
  }

  /** Looks up many companies, as `peopleBulk` does people. */
  companyBulk(
    items: ReadonlyArray<BulkItem<CompanyQuery>>,
    options: BulkOptions = {},
  ): Promise<BulkAnswer<CompanyBulkResult>> {
    return this.#bulk<CompanyQuery, CompanyBulkResult>(items, options, (body, init) =>
      jsonBulk(this.#api.POST('/v1/company/bulk', { ...init, body: body as never })),
    );
  }

  async #bulk<Q, R>(
    items: ReadonlyArray<BulkItem<Q>>,
    options: BulkOptions,
    post: (
      body: { requests: BulkItem<Q>[]; fields?: string[] },
      init: CallInit,
    ) => Promise<Answer<{ results: R[]; summary: BulkSummary }>>,
  ): Promise<BulkAnswer<R>> {
    const size = Math.min(MAX_BULK_ITEMS, Math.max(1, Math.floor(options.chunkSize ?? MAX_BULK_ITEMS)));
    const { fields } = options;
    const answers = await inChunks(
      items,
      size,
      options.concurrency ?? 2,
      (requests, signal) =>
        this.#call((init) => post(fields ? { requests, fields } : { requests }, init), {
          ...options,
          signal,
        }),
      options.signal,
    );
    const summary: BulkSummary = { matched: 0, not_found: 0, ambiguous: 0, invalid: 0, quota_exceeded: 0 };
    for (const answer of answers) {
      for (const status of Object.keys(summary) as Array<keyof BulkSummary>)
        summary[status] += answer.summary[status];
    }
    return { results: answers.flatMap((answer) => answer.results), summary };
  }

  /** The calling key's usage this month: per day and operation, totals, and its quota left. */
  usage(options?: CallOptions): Promise<Usage> {
    return this.#call((init) => this.#api.GET('/v1/usage', init), options);
  }

  /** Every key, with its settings and state (the `admin` scope, as every admin method needs). */
  adminKeys(options?: CallOptions): Promise<KeyList> {
    return this.#call((init) => this.#api.GET('/v1/admin/keys', init), options);
  }

  /**
   * Creates a key: its token is in the answer, and never shown again.
   * @example const { id, token } = await admin.adminCreateKey({ name: 'crm', scopes: ['people:read'], rate: 10 });
   */
  adminCreateKey(body: KeyCreate, options?: CallOptions): Promise<IssuedKey> {
    return this.#call((init) => this.#api.POST('/v1/admin/keys', { ...init, body }), options);
  }

  /** A key's settings, state and usage this month. */
  adminKey(id: string, options?: CallOptions): Promise<AdminKeyReport> {
    return this.#call(
      (init) => this.#api.GET('/v1/admin/keys/{id}', { ...init, params: { path: { id } } }),
      options,
    );
  }

  /** Changes a key's name, scopes, rate, quota or expiry (null removes a quota or an expiry). */
  adminUpdateKey(id: string, changes: KeyChanges, options?: CallOptions): Promise<AdminKeyReport> {
    return this.#call(
      (init) => this.#api.PATCH('/v1/admin/keys/{id}', { ...init, params: { path: { id } }, body: changes }),
      options,
    );
  }

  /** Gives a key a new token (in the answer only); the old one works for `grace` (default 24h). */
  adminRotateKey(id: string, body: KeyRotate = {}, options?: CallOptions): Promise<IssuedKey> {
    return this.#call(
      (init) => this.#api.POST('/v1/admin/keys/{id}/rotate', { ...init, params: { path: { id } }, body }),
      options,
    );
  }

  /** Revokes a key: its next request answers 401. */
  adminRevokeKey(id: string, options?: CallOptions): Promise<AdminKeyReport> {
    return this.#call(
      (init) => this.#api.POST('/v1/admin/keys/{id}/revoke', { ...init, params: { path: { id } } }),
      options,
    );
  }

  /** Requests and outcomes per key and operation, by minute, hour (with latency percentiles) or day. */
  adminUsage(query: AdminUsageQuery = {}, options?: CallOptions): Promise<UsageSeriesPage> {
    return this.#call((init) => this.#api.GET('/v1/admin/usage', { ...init, params: { query } }), options);
  }

  /**
   * A page of audited lookups, oldest first: of a person or company found by any identifier, or of a key.
   * @example const page = await admin.adminAudit({ person: 'jane.citizen@acme.com.au' });
   */
  adminAudit(query: AdminAuditQuery, options?: CallOptions): Promise<AuditPage> {
    // JSON asked for (the client's Accept): the CSV form of the answer does not come.
    return this.#call(
      (init) => this.#api.GET('/v1/admin/audit', { ...init, params: { query } }),
      options,
    ) as Promise<AuditPage>;
  }

  /** Deletes what each identifier finds and keeps it out; with `dry_run`, only says what it would delete. */
  adminSuppress(body: SuppressionRequest, options?: CallOptions): Promise<SuppressionResult> {
    return this.#call((init) => this.#api.POST('/v1/admin/suppressions', { ...init, body }), options);
  }

  /** Forgets the suppressions holding each identifier given. */
  adminUnsuppress(query: AdminSuppressionQuery, options?: CallOptions): Promise<Record<string, unknown>> {
    return this.#call(
      (init) => this.#api.DELETE('/v1/admin/suppressions', { ...init, params: { query } }),
      options,
    );
  }

  /** Records per entity, the store's size, the change log's bounds. */
  adminStats(options?: CallOptions): Promise<StoreStats> {
    return this.#call((init) => this.#api.GET('/v1/admin/stats', init), options) as Promise<StoreStats>;
  }

  /**
   * One page of the feed of changes (`GET /v1/changes`, scope `changes:read`): the events after `after` (a
   * page's `next`; omitted, the oldest kept), in commit order. With `wait` (seconds, at most 30) an empty page
   * is held until an event arrives; the call's bound is that much longer. A cursor older than the change log
   * keeps throws EnrichError with `code` `gone` (410).
   * @example const { data, next } = await enrich.changes({ types: ['person.job_changed'], limit: 500 });
   */
  changes(query: ChangesQuery = {}, options: CallOptions = {}): Promise<ChangesPage> {
    const { types, ...rest } = query;
    const params = { query: types === undefined ? rest : { ...rest, types: types.join(',') } };
    const timeoutMs = (options.timeoutMs ?? this.#timeoutMs) + (query.wait ?? 0) * 1000;
    return this.#call((init) => this.#api.GET('/v1/changes', { ...init, params }), { ...options, timeoutMs });
  }

  /**
   * Every event after `query.after`, page after page, following `next`. It ends once caught up, unless
   * `follow` is set: then it long-polls (`wait`, default 30 s) for events to come, and ends when
   * `options.signal` aborts. `onPage` is told each page's `next`: saved, it resumes a reader where it stopped.
   * @example for await (const event of enrich.changesAll({ types: ['person.job_changed'] })) console.log(event.data);
   */
  async *changesAll(
    query: ChangesQuery & ChangesFollow = {},
    options: CallOptions = {},
  ): AsyncGenerator<ChangeEvent> {
    const { follow = false, onPage, ...rest } = query;
    let after = rest.after;
    const { signal } = options;
    for (;;) {
      const waiting = follow ? { wait: rest.wait ?? 30 } : {};
      const read = this.changes({ ...rest, ...waiting, ...(after === undefined ? {} : { after }) }, options);
      // Following ends when told to, quietly, even mid-wait.
      const page = follow ? await read.catch(endedBy(signal)) : await read;
      if (page === undefined) return;
      yield* page.data;
      after = page.next;
      onPage?.(page.next);
      if ((!page.has_more && !follow) || signal?.aborted) return;
    }
  }

  /**
   * A new, empty watchlist (scope `changes:write`): people and companies whose changes the key follows.
   * @example const { id } = await enrich.createWatchlist('Champions at open deals');
   */
  createWatchlist(name: string, options?: CallOptions): Promise<Watchlist> {
    return this.#call((init) => this.#api.POST('/v1/watchlists', { ...init, body: { name } }), options);
  }

  /** The key's watchlists, oldest first. */
  async watchlists(options?: CallOptions): Promise<Watchlist[]> {
    return (await this.#call((init) => this.#api.GET('/v1/watchlists', init), options)).data;
  }

  /** One of the key's watchlists, or null when it has none of that id. */
  watchlist(id: string, options?: CallOptions): Promise<Watchlist | null> {
    return orNull(
      this.#call(
        (init) => this.#api.GET('/v1/watchlists/{id}', { ...init, params: { path: { id } } }),
        options,
      ),
    );
  }

  /** Deletes one of the key's watchlists and its entries. */
  async deleteWatchlist(id: string, options?: CallOptions): Promise<void> {
    await this.#call(
      (init) => this.#api.DELETE('/v1/watchlists/{id}', { ...init, params: { path: { id } } }),
      options,
    );
  }

  /**
   * Watches people and companies found by any lookup identifier: one request per chunk of `chunkSize`
   * entries (at most 1,000), one at a time. Resolves with every entry's result in the order given
   * (`watching` with the id found, or the problem its lookup would answer) and the watchlist's size after.
   * @example await enrich.addWatchlistEntries(id, [{ person: { work_email: 'jane@acme.com.au' }, ref: 'crm-1' }]);
   */
  async addWatchlistEntries(
    id: string,
    entries: readonly WatchEntryRequest[],
    options: Omit<BulkOptions, 'fields' | 'concurrency'> = {},
  ): Promise<{ results: WatchEntryResult[]; size: number }> {
    const size = Math.min(MAX_BULK_ITEMS, Math.max(1, Math.floor(options.chunkSize ?? MAX_BULK_ITEMS)));
    const answers = await inChunks(
      entries,
      size,
      1,
      (chunk, signal) =>
        this.#call(
          (init) =>
            this.#api.POST('/v1/watchlists/{id}/entries', {
              ...init,
              params: { path: { id } },
              body: { entries: chunk },
            }) as Promise<Answer<WatchEntriesResponse>>,
          { ...options, signal },
        ),
      options.signal,
    );
    return { results: answers.flatMap((answer) => answer.results), size: answers.at(-1)?.size ?? 0 };
  }

  /** One page of a watchlist's entries, in the order added; pass its `next` as `after` for the following. */
  watchlistEntries(
    id: string,
    page: { after?: string; limit?: number } = {},
    options?: CallOptions,
  ): Promise<WatchEntryPage> {
    return this.#call(
      (init) =>
        this.#api.GET('/v1/watchlists/{id}/entries', { ...init, params: { path: { id }, query: page } }),
      options,
    );
  }

  /** Every entry of a watchlist, page after page. */
  async *watchlistEntriesAll(id: string, options?: CallOptions): AsyncGenerator<WatchEntry> {
    for (let after: string | undefined; ; ) {
      const page = await this.watchlistEntries(id, after === undefined ? {} : { after }, options);
      yield* page.data;
      if (!page.has_more || page.next === null) return;
      after = page.next;
    }
  }

  /** Stops watching one entry (its `id` as listed). */
  async deleteWatchlistEntry(id: string, entryId: string, options?: CallOptions): Promise<void> {
    await this.#call(
      (init) =>
        this.#api.DELETE('/v1/watchlists/{id}/entries/{entry_id}', {
          ...init,
          params: { path: { id, entry_id: entryId } },
        }),
      options,
    );
  }

  /**
   * Makes a webhook endpoint (scope `changes:write`); the answer's `secret` is shown only this once.
   * @example const { endpoint, secret } = await enrich.createWebhook({ url: 'https://crm.example.com/hook', types: ['person.job_changed'] });
   */
  createWebhook(body: CreateWebhook, options?: CallOptions): Promise<WebhookSecret> {
    return this.#call((init) => this.#api.POST('/v1/webhooks', { ...init, body }), options);
  }

  /** The calling key's webhook endpoints, oldest first. */
  async webhooks(options?: CallOptions): Promise<WebhookEndpoint[]> {
    return (await this.#call((init) => this.#api.GET('/v1/webhooks', init), options)).data;
  }

  /** One of the calling key's endpoints; another key's is a 404 (EnrichError). */
  webhook(id: string, options?: CallOptions): Promise<WebhookEndpoint> {
    return this.#call(
      (init) => this.#api.GET('/v1/webhooks/{id}', { ...init, params: { path: { id } } }),
      options,
    );
  }

  /** Changes an endpoint's url, types, watchlist or description, or disables (or enables) it. */
  updateWebhook(id: string, body: ChangeWebhook, options?: CallOptions): Promise<WebhookEndpoint> {
    return this.#call(
      (init) => this.#api.PATCH('/v1/webhooks/{id}', { ...init, params: { path: { id } }, body }),
      options,
    );
  }

  /** Removes an endpoint and its delivery log. */
  async deleteWebhook(id: string, options?: CallOptions): Promise<void> {
    await this.#call(
      (init) => this.#api.DELETE('/v1/webhooks/{id}', { ...init, params: { path: { id } } }),
      options,
    );
  }

  /** A new secret for an endpoint; the old one still signs deliveries for 24 hours. */
  rotateWebhookSecret(id: string, options?: CallOptions): Promise<WebhookSecret> {
    return this.#call(
      (init) => this.#api.POST('/v1/webhooks/{id}/rotate-secret', { ...init, params: { path: { id } } }),
      options,
    );
  }

  /** Delivers a `webhook.test` event to an endpoint now, and says how the attempt went. */
  testWebhook(id: string, options?: CallOptions): Promise<WebhookTest> {
    return this.#call(
      (init) => this.#api.POST('/v1/webhooks/{id}/test', { ...init, params: { path: { id } } }),
      options,
    );
  }

  /** A page of an endpoint's deliveries, oldest first; pass `next` as `after` for the following one. */
  webhookDeliveries(
    id: string,
    query: WebhookDeliveryQuery = {},
    options?: CallOptions,
  ): Promise<WebhookDeliveries> {
    return this.#call(
      (init) => this.#api.GET('/v1/webhooks/{id}/deliveries', { ...init, params: { path: { id }, query } }),
      options,
    );
  }

  /** Attempts a delivery again now, whatever its status. */
  async retryWebhookDelivery(id: string, deliveryId: string, options?: CallOptions): Promise<void> {
    const path = { id, delivery_id: deliveryId };
    await this.#call(
      (init) =>
        this.#api.POST('/v1/webhooks/{id}/deliveries/{delivery_id}/retry', { ...init, params: { path } }),
      options,
    );
  }

  /**
   * One operation, bounded in time, retried as the server asks, its error response thrown as EnrichError.
   * Every method is one such call; the search iterators make one per page, each with the caller's signal
   * (a bulk helper would make one per chunk of its list).
   * Every method is one such call, a bulk helper one per chunk of its list (a search helper would make one
   * per page), each with the caller's signal.
   */
  /**
   * Uploads a list to match in the background (scope `people:read` or `company:read`): CSV or NDJSON text,
   * matched as `enrich match` matches it. `map` is its `--map` (`COLUMN=PARAM`), `fields` its `--fields`.
   * @example const { id } = await enrich.createList('people', 'Name,Email\nJane,jane@acme.com.au\n');
   */
  createList(
    entity: 'people' | 'companies',
    list: string,
    options: CallOptions & { format?: 'csv' | 'ndjson'; map?: string[]; fields?: string } = {},
  ): Promise<ListJob> {
    const { format = 'csv', map, fields, ...call } = options;
    const query = { entity, ...(map ? { map } : {}), ...(fields ? { fields } : {}) };
    const type = format === 'csv' ? 'text/csv' : 'application/x-ndjson';
    return this.#call(
      (init) =>
        this.#api.POST('/v1/lists', {
          ...init,
          params: { query },
          body: list as never,
          bodySerializer: (body: unknown) => body as string,
          headers: { 'content-type': type },
        }) as Promise<Answer<ListJob>>,
      call,
    );
  }

  /** A list's progress, or null when the key has none of that id. */
  getList(id: string, options?: CallOptions): Promise<ListJob | null> {
    return orNull(
      this.#call((init) => this.#api.GET('/v1/lists/{id}', { ...init, params: { path: { id } } }), options),
    );
  }

  /** A done list's result: the text `enrich match` writes for it (CSV for CSV, NDJSON for NDJSON). */
  listResult(id: string, options?: CallOptions): Promise<string> {
    return this.#call(
      (init) =>
        this.#api.GET('/v1/lists/{id}/result', {
          ...init,
          params: { path: { id } },
          parseAs: 'text',
        }) as Promise<Answer<string>>,
      options,
    );
  }

  /** One page of the key's lists, newest first; pass its `next` as `after` for the following. */
  lists(page: { after?: string; limit?: number } = {}, options?: CallOptions): Promise<ListPage> {
    return this.#call((init) => this.#api.GET('/v1/lists', { ...init, params: { query: page } }), options);
  }

  /** Deletes one of the key's lists and its result (stopping it if it runs). */
  async deleteList(id: string, options?: CallOptions): Promise<void> {
    await this.#call(
      (init) => this.#api.DELETE('/v1/lists/{id}', { ...init, params: { path: { id } } }),
      options,
    );
  }

  async #call<T>(send: (init: CallInit) => Promise<Answer<T>>, options: CallOptions = {}): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const policy = { retries: this.#retries, deadline: Date.now() + timeoutMs, fetch: this.#fetch };
    const { data, error, response } = await send({
      signal,
      fetch: (request) => fetchWithRetries(request, policy),
    });
    if (response.ok) return data as T;
    throw new EnrichError(response.status, isProblem(error) ? error : undefined, response.headers);
  }
}

/**
 * A bulk call's answer as the JSON document it is: the operation also answers NDJSON lines (to an NDJSON
 * body), so the generated type is a union of both, but these calls send JSON.
 */
function jsonBulk<R>(
  call: Promise<Answer<unknown>>,
): Promise<Answer<{ results: R[]; summary: BulkSummary }>> {
  return call as Promise<Answer<{ results: R[]; summary: BulkSummary }>>;
}

/** What a call that failed becomes: nothing when `signal` aborted it (the caller ended it), else its error. */
const endedBy =
  (signal: AbortSignal | undefined) =>
  (error: unknown): undefined => {
    if (signal?.aborted) return undefined;
    throw error;
  };

/** A lookup's record, or null for its 404: no record matches. */
async function orNull<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof EnrichError && error.code === 'not_found') return null;
    throw error;
  }
}
