// The client against a real `enrich serve`: records, null for 404, typed errors, retries, aborts and timeouts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Company, Enrich, EnrichError, type Person, type PersonQuery } from '../src/index.js';
import { MANAGERS, proxyTo, startServer, stubServer, type TestServer, unavailable } from './server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
}, 120_000);
// Killed, not stopped: a graceful stop would wait for the connections the cancelling tests leave open.
afterAll(() => t?.server.child.kill('SIGKILL'));

/** A client of the test server, counting the requests it sends. */
function client(token: string, options: { baseUrl?: string; retries?: number; timeoutMs?: number } = {}) {
  let sent = 0;
  const enrich = new Enrich({
    baseUrl: t.url,
    token,
    ...options,
    fetch: (request) => {
      sent++;
      return fetch(request);
    },
  });
  return { enrich, sent: () => sent };
}

/** The EnrichError a call rejects with. */
async function failure(call: Promise<unknown>): Promise<EnrichError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EnrichError);
  return error as EnrichError;
}

/** What a call rejects with, whatever it is. */
const rejection = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (e: unknown) => e as Error,
  );

describe('searches', () => {
  it('return a page of people, and the next page from its cursor', async () => {
    const { enrich } = client(t.tokens.full);
    const page = await enrich.searchPeople({ filters: { seniority: 'Manager' }, size: 5, fields: ['name'] });
    expect(page.total).toEqual({ value: 7, relation: 'eq' });
    expect(page.results.map((r) => r.person_id)).toEqual(MANAGERS.slice(0, 5).map((m) => m.id));
    expect(page.results[0]).toEqual({ person_id: 'fp000000000101', name: 'Manager 1' });
    const next = await enrich.searchPeople({
      filters: { seniority: 'Manager' },
      size: 5,
      cursor: page.next!,
    });
    expect(next.results.map((r) => r.person_id)).toEqual(MANAGERS.slice(5).map((m) => m.id));
    expect(next.next).toBeNull();
  });

  it('iterate over every page, one call each', async () => {
    const { enrich, sent } = client(t.tokens.full);
    const ids: string[] = [];
    for await (const person of enrich.searchPeopleAll({ q: 'finance manager', size: 2 }))
      ids.push(person.person_id);
    expect(ids).toEqual(MANAGERS.map((m) => m.id));
    expect(sent()).toBe(4);
    const companies: string[] = [];
    for await (const company of enrich.searchCompaniesAll({ q: 'acme', size: 1 })) companies.push(company.id);
    expect(companies).toEqual(['f000000000001', 'f000000000002']);
  });

  it('reject a bad search with the problem naming it', async () => {
    const { enrich } = client(t.tokens.full);
    const error = await failure(enrich.searchPeople({ filters: { seniority: 'Intern' as never } }));
    expect([error.status, error.code, error.parameter]).toEqual([
      400,
      'invalid_parameter',
      'filters.seniority',
    ]);
    const forbidden = await failure(client(t.tokens.companyOnly).enrich.searchPeople({ q: 'jane' }));
    expect(forbidden.code).toBe('forbidden');
  });
});

describe('lookups', () => {
  it('return the person and the company the identifiers find, typed', async () => {
    const { enrich } = client(t.tokens.full);
    const person: Person | null = await enrich.people({ work_email: ' Jane.Citizen@acme.com.au' });
    expect(person?.name).toBe('Jane Citizen');
    expect(person?.emails?.personal?.[0]?.value).toBe('jane@gmail.com');
    const company: Company | null = await enrich.company({ website: 'https://shop.acme.com.au/about' });
    expect(company?.id).toBe('f000000000001');
  });

  it('return null when no record matches', async () => {
    const { enrich } = client(t.tokens.full);
    expect(await enrich.people({ id: 'fp000000000999' })).toBeNull();
    expect(await enrich.company({ fqdn: 'nowhere.example' })).toBeNull();
  });

  it("report the key's usage", async () => {
    const usage = await client(t.tokens.quota).enrich.usage();
    expect(usage.period).toBe(new Date().toISOString().slice(0, 7));
    expect([usage.quota, typeof usage.totals.matched]).toEqual([1, 'number']);
  });
});

describe('admin', () => {
  it('creates a key whose token works, changes, rotates and revokes it', async () => {
    const { enrich: admin } = client(t.tokens.admin);
    const created = await admin.adminCreateKey({ name: 'from the client', scopes: ['people:read'] });
    expect(created.token).toMatch(/^enr_/);
    const person = await client(created.token).enrich.people({ id: 'fp000000000001' });
    expect(person?.id).toBe('fp000000000001');
    expect((await admin.adminUpdateKey(created.id, { rate: 3 })).rate).toBe(3);
    expect((await admin.adminKeys()).keys.map((k) => k.id)).toContain(created.id);
    const rotated = await admin.adminRotateKey(created.id, { grace: '0' });
    expect(rotated.token).not.toBe(created.token);
    expect((await admin.adminRevokeKey(created.id)).state).toBe('revoked');
    expect((await failure(client(rotated.token).enrich.people({ id: 'fp000000000001' }))).status).toBe(401);
  });

  it('reads usage series, the audit of a person, suppressions and stats', async () => {
    const { enrich: admin } = client(t.tokens.admin);
    await client(t.tokens.full).enrich.people({ ln_slug: 'jane-citizen' });
    const usage = await admin.adminUsage({ granularity: 'hour' });
    expect(usage.series.some((s) => s.operation === 'people')).toBe(true);
    const audit = await admin.adminAudit({ person: 'linkedin.com/in/jane-citizen' });
    expect(audit.entries.at(-1)?.params).toEqual(['ln_slug']);
    const dry = await admin.adminSuppress({ entity: 'people', id: 'fp000000000003', dry_run: true });
    expect(dry.suppressed[0]?.record_ids).toEqual(['fp000000000003']);
    expect((await admin.adminStats()).records).toMatchObject({ people: 10, companies: 2 });
    const refused = await failure(client(t.tokens.full).enrich.adminStats());
    expect([refused.status, refused.code]).toEqual([403, 'forbidden']);
  });
});

describe('errors', () => {
  it('are a 409 carrying which parameter matched which records', async () => {
    const error = await failure(client(t.tokens.full).enrich.people({ work_email: 'info@acme.com.au' }));
    expect(error.status).toBe(409);
    expect(error.code).toBe('ambiguous_match');
    expect(error.matches).toEqual({ work_email: ['fp000000000001', 'fp000000000002'] });
    expect(error.problem?.request_id).toBe(error.requestId);
  });

  it('are a 400 naming the parameter at fault, or the parameters accepted', async () => {
    const { enrich } = client(t.tokens.full);
    const invalid = await failure(enrich.people({ work_email: 'not an address' }));
    expect([invalid.status, invalid.code, invalid.parameter]).toEqual([
      400,
      'invalid_parameter',
      'work_email',
    ]);
    const unknown = await failure(enrich.people({ email: 'jane@acme.com.au' } as PersonQuery));
    expect([unknown.code, unknown.parameter]).toEqual(['unknown_parameter', 'email']);
    expect(unknown.accepted).toContain('work_email');
    const missing = await failure(enrich.company({}));
    expect(missing.code).toBe('missing_identifier');
    expect(missing.accepted).toEqual(['id', 'ln_slug', 'ln_url', 'fqdn', 'abn', 'website']);
  });

  it('are a 401 and a 403 with the request id and the missing scope', async () => {
    const unauthorized = await failure(client('enr_not-a-token').enrich.people({ id: 'fp000000000001' }));
    expect([unauthorized.status, unauthorized.code]).toEqual([401, 'unauthorized']);
    expect(unauthorized.requestId).toMatch(/\S/);
    const forbidden = await failure(client(t.tokens.companyOnly).enrich.people({ id: 'fp000000000001' }));
    expect([forbidden.status, forbidden.code, forbidden.requiredScope]).toEqual([
      403,
      'forbidden',
      'people:read',
    ]);
    expect(forbidden.requestId).toMatch(/\S/);
  });

  it('are a 402 at once when the quota is used up: never retried', async () => {
    const { enrich, sent } = client(t.tokens.quota);
    expect(await enrich.people({ id: 'fp000000000001' })).not.toBeNull();
    const error = await failure(enrich.people({ id: 'fp000000000001' }));
    expect([error.status, error.code]).toEqual([402, 'quota_exceeded']);
    expect(sent()).toBe(2);
  });
});

describe('retries', () => {
  it('wait out a 429 as Retry-After says, then succeed', async () => {
    const { enrich, sent } = client(t.tokens.slow);
    await enrich.people({ id: 'fp000000000001' }); // the bucket's one request
    const started = Date.now();
    expect((await enrich.people({ id: 'fp000000000001' }))?.id).toBe('fp000000000001');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(sent()).toBeGreaterThanOrEqual(3);
  });

  it('give a 429 back, with Retry-After, when retries are off', async () => {
    const { enrich, sent } = client(t.tokens.slow, { retries: 0 });
    await rejection(enrich.people({ id: 'fp000000000001' })); // empties the bucket, if not already empty
    const error = await failure(enrich.people({ id: 'fp000000000001' }));
    expect([error.status, error.code, error.retryAfter]).toEqual([429, 'rate_limited', 1]);
    expect(sent()).toBe(2);
  });

  it('wait out a 503 as Retry-After says, then succeed', async () => {
    const stub = await stubServer([unavailable(1), proxyTo(t.url)]);
    try {
      const { enrich, sent } = client(t.tokens.full, { baseUrl: stub.url });
      const started = Date.now();
      expect((await enrich.company({ abn: '51 824 753 556' }))?.name).toBe('Acme Holdings');
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(sent()).toBe(2);
    } finally {
      stub.server.close();
    }
  });

  it('are bounded: the last 503 is thrown after the given number of retries', async () => {
    const stub = await stubServer([unavailable(0)]);
    try {
      const { enrich, sent } = client(t.tokens.full, { baseUrl: stub.url, retries: 2 });
      const error = await failure(enrich.people({ id: 'fp000000000001' }));
      expect([error.status, error.code, error.requestId]).toEqual([503, 'unavailable', 'stub-1']);
      expect(sent()).toBe(3);
    } finally {
      stub.server.close();
    }
  });

  it('are not made when Retry-After runs past the timeout', async () => {
    const stub = await stubServer([unavailable(60)]);
    try {
      const { enrich, sent } = client(t.tokens.full, { baseUrl: stub.url, timeoutMs: 2000 });
      const started = Date.now();
      const error = await failure(enrich.people({ id: 'fp000000000001' }));
      expect([error.code, error.retryAfter]).toEqual(['unavailable', 60]);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(sent()).toBe(1);
    } finally {
      stub.server.close();
    }
  });
});

describe('cancelling', () => {
  /** Runs `call` while the server is stopped (SIGSTOP): it accepts connections but answers nothing. */
  async function whileStopped<T>(call: () => Promise<T>): Promise<T> {
    t.server.child.kill('SIGSTOP');
    try {
      return await call();
    } finally {
      t.server.child.kill('SIGCONT');
    }
  }

  it('an AbortSignal rejects the call with its reason', async () => {
    const { enrich } = client(t.tokens.full);
    const error = await whileStopped(() => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      return rejection(enrich.people({ id: 'fp000000000001' }, { signal: controller.signal }));
    });
    expect(error?.name).toBe('AbortError');
  });

  it('a timeout rejects the call with a TimeoutError', async () => {
    const { enrich } = client(t.tokens.full, { timeoutMs: 300 });
    const started = Date.now();
    const error = await whileStopped(() => rejection(enrich.people({ id: 'fp000000000001' })));
    expect(error?.name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
