// The Enrich client: typed lookups over openapi-fetch, with bounded retries, timeouts and typed errors.
import createFetchClient, { type Client } from 'openapi-fetch';
import { inChunks } from './chunks.js';
import { EnrichError, isProblem } from './errors.js';
import { fetchWithRetries } from './retry.js';
import type { paths } from './schema.js';
import type {
  BulkAnswer,
  BulkItem,
  BulkSummary,
  Company,
  CompanyBulkResult,
  CompanyQuery,
  CompanySearchPage,
  CompanySearchRequest,
  CompanySearchResult,
  PeopleBulkResult,
  PeopleSearchPage,
  PeopleSearchRequest,
  Person,
  PersonQuery,
  PersonSearchResult,
  Usage,
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

  /**
   * One operation, bounded in time, retried as the server asks, its error response thrown as EnrichError.
   * Every method is one such call; the search iterators make one per page, each with the caller's signal
   * (a bulk helper would make one per chunk of its list).
   * Every method is one such call, a bulk helper one per chunk of its list (a search helper would make one
   * per page), each with the caller's signal.
   */
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

/** A lookup's record, or null for its 404: no record matches. */
async function orNull<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof EnrichError && error.code === 'not_found') return null;
    throw error;
  }
}
