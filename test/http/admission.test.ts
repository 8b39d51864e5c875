// The admission of a keyed request, step by step: the order of the steps and of a gate's own work between
// them, what each refuses, what a refusal costs, and the re-check a long stream makes between batches.
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProblemError } from '../../src/errors.js';
import { Admission, type Admittee, type Gate } from '../../src/http/admission.js';
import { MemoryQuotaCounter, type QuotaTicket } from '../../src/limits/quota.js';
import { MemoryRateLimiter } from '../../src/limits/rate-limit.js';
import { UnauthenticatedLimit } from '../../src/limits/unauthenticated.js';
import type { ApiKey } from '../../src/store/keys.js';
import { isPromise } from '../../src/store/maybe-promise.js';
import { type TestApp, testApp } from '../helpers/app.js';

/** A request in admission, keeping the headers it is given and the steps its gate's work ran at. */
class Call implements Admittee {
  keyId: string | undefined;
  key: ApiKey | undefined;
  ticket: QuotaTicket | null = null;
  readonly headers: Record<string, string> = {};
  readonly req: IncomingMessage;

  constructor(authorization?: string) {
    const headers = authorization === undefined ? {} : { authorization };
    this.req = { headers, socket: { remoteAddress: '192.0.2.1' } } as unknown as IncomingMessage;
  }

  header(name: string, value: string): void {
    this.headers[name] = value;
  }
}

/** The refusal admission answers with, whether at once or by a promise; undefined when admitted. */
async function refusal(admitted: () => unknown): Promise<ProblemError | undefined> {
  try {
    await admitted();
    return undefined;
  } catch (error) {
    return error as ProblemError;
  }
}

describe('admission', () => {
  let t: TestApp;
  let admission: Admission;
  let limiter: MemoryRateLimiter;
  beforeAll(async () => {
    t = await testApp('sqlite');
    // A clock that stands still: a bucket refills only when a test says.
    limiter = new MemoryRateLimiter(() => 0);
    admission = new Admission({
      keys: t.store,
      limiter,
      quota: new MemoryQuotaCounter(t.store),
      unauthenticated: new UnauthenticatedLimit(limiter, 20, () => '192.0.2.1'),
      accounting: undefined,
    });
  });
  afterAll(() => t.close());

  const people: Gate<Call> = { scopes: ['people:read'], quota: false };

  it('admits a live key at once, without a promise, where the store and the limits answer at once', async () => {
    const key = await t.newKey({ rate: 10 });
    const call = new Call(key.auth);
    const admitted = admission.admit(call, people);
    expect(isPromise(admitted)).toBe(false);
    expect(call.key?.id).toBe(key.id);
    expect(call.headers).toEqual({
      'ratelimit-policy': '"default";q=10;w=1',
      ratelimit: '"default";r=9;t=1',
    });
  });

  it("runs a gate's own work between the steps, in order", async () => {
    const key = await t.newKey({ quota: 5, rate: 50 });
    const steps: string[] = [];
    const call = new Call(key.auth);
    const gate: Gate<Call> = {
      scopes: ['people:read'],
      quota: true,
      beforeKey: (c) => steps.push(`before the key: ${c.keyId}`),
      afterLive: (c) =>
        void steps.push(`once live: ${c.key?.id === key.id}, not yet rated: ${!c.headers.ratelimit}`),
      cost: () => {
        steps.push('costed');
        return 2;
      },
      afterScope: (c) => steps.push(`after the scope: rated ${c.headers.ratelimit}, no ticket: ${!c.ticket}`),
    };
    await admission.admit(call, gate);
    expect(steps).toEqual([
      'before the key: undefined',
      'once live: true, not yet rated: true',
      'costed',
      'after the scope: rated "default";r=48;t=1, no ticket: true',
    ]);
    expect(call.ticket).not.toBeNull();
  });

  it('refuses no token and a malformed one before asking the store, with a Bearer challenge', async () => {
    const none = await refusal(() => admission.admit(new Call(), people));
    expect(none).toMatchObject({
      code: 'unauthorized',
      headers: { 'www-authenticate': 'Bearer realm="enrich"' },
    });
    const malformed = await refusal(() => admission.admit(new Call('Bearer enr_short'), people));
    expect(malformed?.detail).toBe('The bearer token is malformed.');
  });

  it('knows the key of a revoked token, so that the refusal is audited', async () => {
    const key = await t.newKey();
    await t.store.revokeKey(key.id, new Date());
    const call = new Call(key.auth);
    expect((await refusal(() => admission.admit(call, people)))?.detail).toMatch(/revoked/);
    expect(call.keyId).toBe(key.id);
    expect(call.key).toBeUndefined();
  });

  it('rates before it checks the scope: a key without it is refused 403 with its RateLimit headers', async () => {
    const key = await t.newKey({ scopes: ['company:read'], rate: 3 });
    const call = new Call(key.auth);
    const refused = await refusal(() => admission.admit(call, people));
    expect(refused).toMatchObject({ status: 403, extensions: { required_scope: 'people:read' } });
    expect(call.headers.ratelimit).toBe('"default";r=2;t=1');
  });

  it('admits a key holding either of two scopes, and names both when it holds neither', async () => {
    const either: Gate<Call> = { scopes: ['people:read', 'company:read'], quota: false };
    const companies = await t.newKey({ scopes: ['company:read'] });
    expect(await refusal(() => admission.admit(new Call(companies.auth), either))).toBeUndefined();
    const neither = await t.newKey({ scopes: [] });
    expect(await refusal(() => admission.admit(new Call(neither.auth), either))).toMatchObject({
      status: 403,
      detail: 'This key lacks the people:read or company:read scope.',
      extensions: { required_scopes: ['people:read', 'company:read'] },
    });
  });

  it('admits any live key when a gate names no scope', async () => {
    const none = await t.newKey({ scopes: [] });
    expect(
      await refusal(() => admission.admit(new Call(none.auth), { scopes: [], quota: false })),
    ).toBeUndefined();
  });

  it('answers 429 with Retry-After and the RateLimit headers once the bucket is empty, in the gate’s words', async () => {
    const key = await t.newKey({ rate: 1 });
    const gate: Gate<Call> = { ...people, rateDetail: (rate) => `${rate} a second, items counted.` };
    await admission.admit(new Call(key.auth), gate);
    expect(await refusal(() => admission.admit(new Call(key.auth), gate))).toMatchObject({
      code: 'rate_limited',
      detail: '1 a second, items counted.',
      headers: {
        'ratelimit-policy': '"default";q=1;w=1',
        ratelimit: '"default";r=0;t=1',
        'retry-after': '1',
      },
    });
  });

  it('charges a request refused once its key is live one token, and answers 429 instead once over the rate', async () => {
    const key = await t.newKey({ rate: 2 });
    // As a bulk whose body cannot be read: refused once the key is live, before its rate.
    const bad: Gate<Call> = {
      ...people,
      afterLive: async () => {
        throw Object.assign(new Error('a bad body'), { statusCode: 400 });
      },
    };
    const first = new Call(key.auth);
    expect((await refusal(() => admission.admit(first, bad)))?.message).toBe('a bad body');
    expect(first.headers.ratelimit).toBe('"default";r=1;t=1');
    await admission.admit(new Call(key.auth), people);
    expect((await refusal(() => admission.admit(new Call(key.auth), bad)))?.code).toBe('rate_limited');
  });

  it('refuses a used-up quota 402 once the rest of admission has passed', async () => {
    const key = await t.newKey({ quota: 1 });
    const gate: Gate<Call> = { ...people, quota: true };
    const call = new Call(key.auth);
    await admission.admit(call, gate);
    expect(call.ticket?.settle(true)).toBe(0);
    expect(await refusal(() => admission.admit(new Call(key.auth), gate))).toMatchObject({
      status: 402,
      headers: { 'enrich-quota-remaining': '0' },
    });
  });

  describe('a re-check between the batches of a stream', () => {
    it('passes while the key is live and holds the scope, taking nothing from its bucket', async () => {
      const key = await t.newKey({ rate: 5 });
      const call = new Call(key.auth);
      await admission.admit(call, people);
      for (let i = 0; i < 10; i++) expect(admission.recheck(call, people)).toBeUndefined();
      await admission.admit(new Call(key.auth), people);
      expect(limiter.take(key.id, 5, 0).remaining).toBe(3);
    });

    it.each([
      ['been revoked', (id: string) => t.store.revokeKey(id, new Date()), 401, /revoked/],
      [
        'expired',
        (id: string) => t.store.updateKey(id, { expires_at: '2000-01-01T00:00:00.000Z' }),
        401,
        /expired/,
      ],
      ['lost its scope', (id: string) => t.store.updateKey(id, { scopes: ['company:read'] }), 403, /lacks/],
    ] as const)('refuses a key that has since %s', async (_what, change, status, detail) => {
      const key = await t.newKey();
      const call = new Call(key.auth);
      await admission.admit(call, people);
      await change(key.id);
      const refused = await refusal(() => admission.recheck(call, people));
      expect(refused?.status).toBe(status);
      expect(refused?.detail).toMatch(detail);
    });
  });

  describe('a refusal for the client address', () => {
    it('turns a 401 into the 429 once the address is over its limit, and leaves any other refusal alone', async () => {
      const limit = new UnauthenticatedLimit(new MemoryRateLimiter(() => 0), 1, () => '198.51.100.9');
      const turning = new Admission({
        keys: t.store,
        limiter,
        quota: new MemoryQuotaCounter(t.store),
        unauthenticated: limit,
        accounting: undefined,
      });
      const unauthorized = (await refusal(() => turning.admit(new Call(), people)))!;
      const forbidden = { code: 'forbidden' } as ProblemError;
      expect(turning.turn(new Call().req, forbidden)).toBe(forbidden);
      expect(turning.turn(new Call().req, unauthorized)).toBe(unauthorized);
      expect((turning.turn(new Call().req, unauthorized) as ProblemError).code).toBe('rate_limited');
      expect(turning.screen(new Call().req)?.code).toBe('rate_limited');
    });
  });
});
