// Requests generated from the OpenAPI document's own schemas (schema → fast-check arbitrary) for each
// operation: the server accepts every one that keeps the rules the document states (its 2xx, or what the data
// says), refuses one that breaks a rule its descriptions state as they say (400, or 404 for a watchlist the
// key does not have), and never fails. Every answer is checked against the document besides
// (check-responses.ts).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_EVENT_TYPES } from '../../src/changes/events.js';
import { ALL_SCOPES } from '../../src/vocabulary/operations.js';
import { type TestApp, testApp } from '../helpers/app.js';
import { PathFixtures } from './path-fixtures.js';
import {
  type Generated,
  type OpenapiDocument,
  type Operation,
  RequestArbitraries,
  type Stated,
} from './request-arbitraries.js';
import { expected, type Own, suppressionIdentifiers } from './stated-rules.js';

/**
 * The lookups' and searches' members whose rule is stated in words (a URL of LinkedIn's, a check digit, a
 * name needing a company, a cursor the server issued): left out, or drawn keeping the rule.
 */
const LOOKUP_STATED: Stated = {
  ln_url: 'omitted',
  ln_slug: 'omitted',
  website: 'omitted',
  abn: 'omitted',
  name: 'omitted',
  first_name: 'omitted',
  last_name: 'omitted',
  company_ln_slug: 'omitted',
  company_name: 'omitted',
  cursor: 'omitted',
  company_domain: fc.domain(),
};
const LOOKUP_TAGS = ['lookups', 'search', 'usage', 'operations'];
/** Members that go only with a name (which is not generated): left out of half the lookups, so that they match. */
const NAME_ONLY_OMITTED: Stated = Object.fromEntries(
  ['company_id', 'company_domain', 'company_ln_slug', 'company_name', 'min_likelihood'].map((name) => [
    name,
    'omitted',
  ]),
);

/** `after` is a cursor the server issued (the `next` of a page): a made-up one is a 400, as stated. */
const NO_CURSOR: Stated = { after: 'omitted' };

/** Event types as the description lists them (comma-separated, perhaps spaced), or any text. */
const eventTypes = (any: fc.Arbitrary<string>) =>
  fc.oneof(
    fc.subarray([...CHANGE_EVENT_TYPES], { minLength: 1 }).map((types) => types.join(',')),
    fc.subarray([...CHANGE_EVENT_TYPES], { minLength: 1 }).map((types) => types.join(' , ')),
    any,
  );

/** Webhook URLs of every kind the `url` description names: names, address literals, other schemes, any text. */
const webhookUrl = (any: fc.Arbitrary<string>) =>
  fc.oneof(
    fc.webUrl({ validSchemes: ['http', 'https'] }),
    fc.ipV4Extended().map((address) => `http://${address}/hook`),
    fc.ipV4().map((address) => `https://[::ffff:${address}]:8443/events`),
    fc.ipV6().map((address) => `https://[${address}]/events`),
    fc.tuple(fc.constantFrom('ftp', 'ws', 'file', 'mailto'), fc.domain()).map(([s, d]) => `${s}://${d}/`),
    fc.domain().map((domain) => `https://user:secret@${domain}/`),
    any,
  );

/** Moments as the admin API's ranges take them: dates, dates and times, around now; or any text. */
const moment = (any: fc.Arbitrary<string>) => {
  const date = fc.date({
    min: new Date(Date.now() - 400 * 86_400_000),
    max: new Date(Date.now() + 400 * 86_400_000),
    noInvalidDate: true,
  });
  return fc.oneof(
    date.map((d) => d.toISOString()),
    date.map((d) => d.toISOString().slice(0, 10)),
    any,
  );
};

/** Members of a lookup's parameters, as a watchlist entry gives them: each a lookup identifier, or any name. */
const lookupMember = fc.oneof(fc.constantFrom('id', 'work_email', 'fqdn', 'personal_email'), fc.string());

/** A row of an NDJSON list: our id as `enrich_id` (matched by), and a column of the caller's own. */
const listRow = fc.record(
  { enrich_id: fc.oneof(fc.constantFrom('fp000000000001', 'f000000000001'), fc.string()), note: fc.string() },
  { requiredKeys: ['enrich_id'] },
);

/**
 * Where an operation's members are drawn other than from their schemas (see above and stated-rules.ts): one
 * way, or several, each generating its share of the requests.
 */
function statedFor(operation: Operation, own: Own, arbitraries: RequestArbitraries): Stated[] {
  if (operation.tags?.some((tag) => LOOKUP_TAGS.includes(tag))) {
    return [LOOKUP_STATED, { ...LOOKUP_STATED, ...NAME_ONLY_OMITTED }];
  }
  return [ownStated(operation, own, arbitraries)];
}

function ownStated(operation: Operation, own: Own, arbitraries: RequestArbitraries): Stated {
  const any = arbitraries.text({ minLength: 1, maxLength: 64 });
  const watchlist = fc.oneof(fc.constant(own.watchlist), any);
  const key = fc.oneof(fc.constant(own.key), any);
  switch (operation.operationId) {
    case 'listChanges':
      // A wait holds an empty page open for its seconds: at 0, a run takes no longer than its requests.
      return { ...NO_CURSOR, types: eventTypes(any), watchlist, wait: fc.constant(0) };
    case 'createWebhook':
      return { url: webhookUrl(any), watchlist };
    case 'updateWebhook':
      return { url: webhookUrl(any), watchlist: fc.oneof(watchlist, fc.constant(null)) };
    case 'addWatchlistEntries':
      return { member: lookupMember };
    case 'adminCreateKey':
    case 'adminUpdateKey':
      return { expires_at: fc.oneof(moment(any), fc.constant(null)) };
    case 'adminUsage':
      return { key, from: moment(any), to: moment(any) };
    case 'adminAudit':
      return { ...NO_CURSOR, key, from: moment(any), to: moment(any) };
    case 'adminSuppressions':
    case 'adminSuppress':
    case 'adminUnsuppress':
      // Each identifier as its lookup takes it: the rules the lookups state in words, left out the same way.
      return { ln_url: 'omitted', ln_slug: 'omitted', website: 'omitted', abn: 'omitted' };
    case 'createList':
      // `map` and `fields` name columns and record fields, as `enrich match`'s --map and --fields.
      return { map: 'omitted', fields: 'omitted', line: listRow };
    default:
      return NO_CURSOR;
  }
}

/**
 * The tags whose operations are not generated here. The console's sign-in needs this server's Origin and a
 * token it can set a cookie for, and its session's routes a browser's cookie (test/routes/console-session.test.ts).
 */
const UNGENERATED_TAGS = ['console'];

function url(path: string, query: Record<string, unknown>): string {
  const search = new URLSearchParams(
    Object.entries(query).flatMap(([k, v]) =>
      Array.isArray(v) ? v.map((e) => [k, String(e)]) : [[k, String(v)]],
    ),
  ).toString();
  return search === '' ? path : `${path}?${search}`;
}

/** A generated body as sent: JSON as inject() sends an object, NDJSON one line per element. */
function payload({ body, type }: Generated): { payload?: string | object; headers: Record<string, string> } {
  if (body === undefined) return { headers: {} };
  if (type === 'application/x-ndjson') {
    const lines = (body as unknown[]).map((line) => `${JSON.stringify(line)}\n`).join('');
    return { payload: lines, headers: { 'content-type': type } };
  }
  return { payload: body as object, headers: {} };
}

let t: TestApp;
let auth: string;
let document: OpenapiDocument;
let fixtures: PathFixtures;
let own: Own;
beforeAll(async () => {
  t = await testApp();
  const made = await t.newKey({ scopes: [...ALL_SCOPES], rate: 1_000_000 });
  auth = made.auth;
  document = (await t.app.inject('/openapi.json')).json();
  fixtures = new PathFixtures(t.app, auth);
  own = {
    watchlist: await fixtures.watchlist(),
    key: made.id,
    identifiers: suppressionIdentifiers(document.components.schemas as Record<string, unknown>),
  };
});
afterAll(() => t?.close());

describe('requests generated from the document', () => {
  it('cover every operation of the document', () => {
    expect(Object.values(document.paths).flatMap((item) => Object.keys(item)).length).toBeGreaterThan(15);
  });

  it('are answered as its stated rules say, and never with a 5xx', async () => {
    const arbitraries = new RequestArbitraries(document);
    const generated: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (operation.tags?.some((tag) => UNGENERATED_TAGS.includes(tag))) continue;
        generated.push(operation.operationId);
        const stated = statedFor(operation, own, arbitraries);
        const ok = Object.keys(operation.responses)
          .filter((status) => /^2\d\d$/.test(status))
          .map(Number);
        await fc.assert(
          fc.asyncProperty(
            fc.oneof(...stated.map((way) => arbitraries.requests(operation, way))),
            async (request) => {
              // A request that only reads may name a resource made before; any other gets one of its own.
              const values = await fixtures.values(path, method === 'get');
              const { payload: body, headers } = payload(request);
              const res = await t.app.inject({
                method: method.toUpperCase() as 'GET',
                url: url(PathFixtures.fill(path, values), request.query),
                headers: { authorization: auth, ...headers },
                ...(body === undefined ? {} : { payload: body }),
              });
              const { statuses, why } = expected(operation.operationId, request, ok, own);
              const where = `${operation.operationId} ${res.statusCode} ${res.body.slice(0, 300)}${why ? ` (${why})` : ''}`;
              expect(res.statusCode, where).toBeLessThan(500);
              expect(statuses, where).toContain(res.statusCode);
            },
          ),
          { numRuns: 30 },
        );
      }
    }
    // Each resource's operations are generated: the change log, watchlists, webhooks, lists and the admin API's.
    for (const operationId of [
      'listChanges',
      'addWatchlistEntries',
      'updateWebhook',
      'createList',
      'adminAudit',
      'adminSuppress',
      'adminUnsuppress',
    ]) {
      expect(generated).toContain(operationId);
    }
  });
});
