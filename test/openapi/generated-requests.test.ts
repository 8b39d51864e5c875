// Requests generated from the OpenAPI document's own schemas (schema → fast-check arbitrary) for each
// operation: the server accepts every one that keeps the rules the document states (2xx, or 404/409 as the
// data says, never 400), refuses with a 400 one that breaks a rule its descriptions state, and never fails.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_WORD_LENGTH } from '../../src/search/v1.js';
import { words } from '../../src/search/values.js';
import { ALL_SCOPES } from '../../src/vocabulary/operations.js';
import { type TestApp, testApp } from '../helpers/app.js';

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
}
interface Operation {
  operationId: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}

/** The longest text generated: short values keep a text well within its word limit (32), as stated. */
const TEXT_CAP = 40;
const LIST_CAP = 4;

/**
 * Members whose rule the document states in words, which a schema cannot say (a URL of LinkedIn's, a check
 * digit, a name needing a company, a cursor the server issued): left out of generated requests, or drawn
 * from an arbitrary that keeps the stated rule.
 */
const STATED: Record<string, fc.Arbitrary<unknown> | 'omitted'> = {
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

let document: { paths: Record<string, Record<string, Operation>>; components: Schema };

function resolve(schema: Schema): Schema {
  let current = schema;
  while (typeof current.$ref === 'string') {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce<Schema>((node, key) => node[key] as Schema, document as unknown as Schema);
  }
  return current;
}

const wordCount = (text: string) => text.split(/[^\p{L}\p{N}]+/u).filter(Boolean).length;

/** A string of the schema: its format, its pattern, its length bounds. */
function text(schema: Schema): fc.Arbitrary<string> {
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = Math.min((schema.maxLength as number | undefined) ?? TEXT_CAP, TEXT_CAP);
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'hostname') return fc.domain();
  const base =
    typeof schema.pattern === 'string'
      ? fc.stringMatching(new RegExp(schema.pattern, 'u'))
      : fc.string({ minLength: min, maxLength: max });
  // A whole-value pattern bounds its strings itself (up to maxLength); a value that need only hold a match is
  // kept short.
  const anchored = typeof schema.pattern === 'string' && /^\^.*\$$/.test(schema.pattern);
  const limit = anchored ? ((schema.maxLength as number | undefined) ?? 4096) : max;
  return base.filter((s) => s.length >= min && s.length <= limit && wordCount(s) <= 32);
}

/** The arbitrary of a JSON schema of the document (the subset its request schemas use). */
function arbitrary(given: Schema, name = ''): fc.Arbitrary<unknown> {
  const stated = STATED[name];
  if (stated !== undefined && stated !== 'omitted') return stated;
  const schema = resolve(given);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if ('const' in schema) return fc.constant(schema.const);
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union) return fc.oneof(...union.map((member) => arbitrary(member, name)));
  switch (schema.type) {
    case 'integer':
      return fc.integer({
        min: (schema.minimum as number | undefined) ?? -1_000_000,
        max: (schema.maximum as number | undefined) ?? 1_000_000,
      });
    case 'boolean':
      return fc.boolean();
    case 'string':
      return text(schema);
    case 'array':
      return fc.array(arbitrary(schema.items as Schema, name), {
        minLength: (schema.minItems as number | undefined) ?? 0,
        maxLength: Math.min((schema.maxItems as number | undefined) ?? LIST_CAP, LIST_CAP),
      });
    default:
      return object(schema);
  }
}

/** An object of the schema's properties (the required ones always, the others perhaps), none unknown. */
function object(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>).filter(
    ([name]) => STATED[name] !== 'omitted',
  );
  const model = Object.fromEntries(properties.map(([name, property]) => [name, arbitrary(property, name)]));
  const minProperties = (schema.minProperties as number | undefined) ?? 0;
  return fc
    .record(model, {
      // A name required by a composition (allOf, oneOf) may have no property here: only this schema's own.
      requiredKeys: ((schema.required as string[] | undefined) ?? []).filter((name) => name in model),
    })
    .filter((value) => Object.keys(value).length >= minProperties);
}

/** A generated request of an operation: its query and, when it takes one, its JSON body. */
interface Generated {
  query: Record<string, unknown>;
  body?: unknown;
}

function requests(operation: Operation): fc.Arbitrary<Generated> {
  const query = object({
    properties: Object.fromEntries(
      (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.schema]),
    ),
    required: (operation.parameters ?? []).filter((p) => p.required).map((p) => p.name),
  });
  const json = operation.requestBody?.content['application/json']?.schema;
  return json === undefined ? query.map((q) => ({ query: q })) : fc.record({ query, body: arbitrary(json) });
}

// The console's sign-in needs this server's Origin and a real token (test/routes/console-session.test.ts).
const UNGENERATED_TAGS = ['changes', 'watchlists', 'webhooks', 'admin', 'lists', 'console'];

const IDENTIFIERS = [
  'id',
  'work_email',
  'personal_email',
  'work_email_sha256',
  'personal_email_sha256',
  'fqdn',
];
const NAME_ONLY = ['company_id', 'company_domain', 'company_ln_slug', 'company_name', 'min_likelihood'];
const COMPATIBLE_FILTERS = ['companyId', 'position', 'seniority', 'department', 'selectedCountry'];

/**
 * The rule a request breaks, of those the operations' descriptions state: a lookup needs an identifier, a
 * search a filter (or `q`), and a bulk's `fields` goes in its query or its body, not both.
 */
function brokenRule(operationId: string, { query, body }: Generated): string | undefined {
  const given = (object: unknown) => Object.keys((object ?? {}) as object);
  if (/^lookup(Person|Company)(V1|Post)?$/.test(operationId)) {
    const names = given(operationId.endsWith('Post') ? body : query);
    if (!names.some((name) => IDENTIFIERS.includes(name))) return 'an identifier is needed';
    // Names are not generated (STATED): what only goes with one is refused.
    if (names.some((name) => NAME_ONLY.includes(name))) return 'a company or min_likelihood only with a name';
    return undefined;
  }
  if (operationId === 'searchPeopleCompatible') {
    if (Number(query.from ?? 0) >= 10_000) return 'a page past the first 10,000 results';
    return given(query).some((name) => COMPATIBLE_FILTERS.includes(name)) ? undefined : 'a filter is needed';
  }
  if (operationId === 'searchPeople' || operationId === 'searchCompanies') {
    const b = body as { q?: unknown; filters?: object };
    const filtered = given(b.filters).length > 0;
    if (b.q === undefined && !filtered) return 'q or a filter is needed';
    // The words the server reads (src/search/values.ts), of two characters or more (MIN_WORD_LENGTH).
    const longWord = b.q !== undefined && words('q', b.q).some((word) => word.length >= MIN_WORD_LENGTH);
    return filtered || longWord ? undefined : 'q needs a word of two characters without a filter';
  }
  if (operationId.endsWith('Bulk')) {
    return query.fields !== undefined && (body as { fields?: unknown }).fields !== undefined
      ? 'fields in the query or the body, not both'
      : undefined;
  }
  return undefined;
}

function url(path: string, query: Record<string, unknown>): string {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return search === '' ? path : `${path}?${search}`;
}

let t: TestApp;
let auth: string;
beforeAll(async () => {
  t = await testApp();
  auth = (await t.newKey({ scopes: [...ALL_SCOPES], rate: 1_000_000 })).auth;
  document = (await t.app.inject('/openapi.json')).json();
});
afterAll(() => t.close());

describe('requests generated from the document', () => {
  it('cover every operation of the document', () => {
    expect(Object.values(document.paths).flatMap((item) => Object.keys(item)).length).toBeGreaterThan(15);
  });

  it('are accepted when they keep its stated rules, refused with a 400 when not, and never a 5xx', async () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        // The lookups, searches, bulk, usage and operations routes; the routes of the change log, watchlists,
        // webhooks, the admin API and lists (written beside this test) state rules of their own not yet encoded here.
        if (operation.tags?.some((tag) => UNGENERATED_TAGS.includes(tag))) continue;
        await fc.assert(
          fc.asyncProperty(requests(operation), async (generated) => {
            const res = await t.app.inject({
              method: method.toUpperCase() as 'GET',
              url: url(path, generated.query),
              headers: { authorization: auth },
              ...(generated.body === undefined ? {} : { payload: generated.body as object }),
            });
            const broken = brokenRule(operation.operationId, generated);
            const where = `${operation.operationId} ${res.statusCode} ${res.body.slice(0, 300)}`;
            expect(res.statusCode, where).toBeLessThan(500);
            if (broken) expect(res.statusCode, `${where} (${broken})`).toBe(400);
            else expect([200, 404, 409], where).toContain(res.statusCode);
          }),
          { numRuns: 30 },
        );
      }
    }
  });
});
