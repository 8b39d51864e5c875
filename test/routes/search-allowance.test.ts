// Harvesting by search is bounded: the results a key's searches return count against its monthly search
// allowance (402 once used up, what is left in a header and in usage), and one query pages no deeper than
// the 10,000-result window — on both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePeople } from '../../src/generate/index.js';
import { encodeCursor } from '../../src/search/cursor.js';
import { BACKENDS, seed, type TestApp, testApp } from '../helpers/app.js';

/** 60 generated people, every one with a seniority: the test app's own people have none. */
const PEOPLE = [...generatePeople({ companies: 5, people: 60, seed: 5, idStart: 7_000 })].filter(
  (p) => p.seniority !== null,
);
const everyone = { seniority: [1, 2, 3, 4, 5, 6, 7] };

for (const backend of BACKENDS) {
  describe(`the search allowance and window, on ${backend}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await testApp(backend);
      await seed(t.store, 'people', PEOPLE);
    });
    afterAll(() => t.close());

    const search = (auth: string, payload: object) =>
      t.app.inject({ method: 'POST', url: '/v1/people/search', headers: { authorization: auth }, payload });

    it('counts each result returned against the allowance, cuts the last page to what is left, then answers 402', async () => {
      const key = await t.newKey({ searchQuota: 25 });
      const first = await search(key.auth, { filters: everyone, size: 10 });
      expect(first.statusCode).toBe(200);
      expect(first.json().results).toHaveLength(10);
      expect(first.headers['enrich-search-quota-remaining']).toBe('15');
      const second = await search(key.auth, { filters: everyone, size: 10, cursor: first.json().next });
      expect(second.headers['enrich-search-quota-remaining']).toBe('5');
      const third = await search(key.auth, { filters: everyone, size: 10, cursor: second.json().next });
      expect(third.statusCode).toBe(200);
      expect(third.json().results).toHaveLength(5);
      expect(third.headers['enrich-search-quota-remaining']).toBe('0');
      const spent = await search(key.auth, { filters: everyone });
      expect(spent.statusCode).toBe(402);
      expect(spent.headers['enrich-search-quota-remaining']).toBe('0');
      expect(spent.json()).toMatchObject({ code: 'quota_exceeded', search_quota: 25 });
      expect(spent.json().detail).toMatch(/search allowance of 25 results/);
      const compatible = await t.app.inject({
        method: 'POST',
        url: '/people/search?seniority=5',
        headers: { authorization: key.auth },
      });
      expect(compatible.statusCode).toBe(402);
      // Lookups are not searches: the key still looks people up.
      const lookup = await t.app.inject({
        url: `/v1/people?id=${PEOPLE[0]!.id}`,
        headers: { authorization: key.auth },
      });
      expect(lookup.statusCode).toBe(200);
    });

    it('shows the allowance and what is left in usage, counted from the store once folded', async () => {
      const key = await t.newKey({ searchQuota: 100 });
      await search(key.auth, { filters: everyone, size: 7 });
      const usage = await t.app.inject({ url: '/v1/usage', headers: { authorization: key.auth } });
      expect(usage.json()).toMatchObject({ search_quota: 100, search_quota_remaining: 93 });
      expect(usage.headers['enrich-search-quota-remaining']).toBe('93');
      const unlimited = await t.app.inject({ url: '/v1/usage', headers: { authorization: t.auth } });
      expect(unlimited.json()).toMatchObject({ search_quota: null, search_quota_remaining: null });
      expect(unlimited.headers['enrich-search-quota-remaining']).toBeUndefined();
    });

    it('sends no allowance header to a key without one, and charges it nothing', async () => {
      const res = await search(t.auth, { filters: everyone, size: 5 });
      expect(res.statusCode).toBe(200);
      expect(res.headers['enrich-search-quota-remaining']).toBeUndefined();
    });

    it('stops paging at the 10,000-result window with a problem saying so', async () => {
      const first = await search(t.auth, { filters: everyone, size: 5 });
      const last = first.json().results.at(-1) as { person_id: string };
      const deep = encodeCursor({ rank: 0, id: last.person_id, served: 10_000 });
      const refused = await search(t.auth, { filters: everyone, cursor: deep });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({
        code: 'invalid_parameter',
        parameter: 'cursor',
        window: 10_000,
      });
      const edge = encodeCursor({ rank: 0, id: last.person_id, served: 9_997 });
      const cut = await search(t.auth, { filters: everyone, size: 10, cursor: edge });
      expect(cut.json().results).toHaveLength(3);
      const compatible = await t.app.inject({
        method: 'POST',
        url: '/people/search?seniority=5&from=9995&size=10',
        headers: { authorization: t.auth },
      });
      expect(compatible.statusCode).toBe(200);
      const past = await t.app.inject({
        method: 'POST',
        url: '/people/search?seniority=5&from=10000',
        headers: { authorization: t.auth },
      });
      expect(past.statusCode).toBe(400);
      expect(past.json()).toMatchObject({ parameter: 'from', window: 10_000 });
    });

    it('counts the next cursor from the results served so far', async () => {
      const first = await search(t.auth, { filters: everyone, size: 4 });
      const second = await search(t.auth, { filters: everyone, size: 4, cursor: first.json().next });
      const decoded = JSON.parse(Buffer.from(second.json().next, 'base64url').toString('utf8'));
      expect(decoded[2]).toBe(8);
    });
  });
}
