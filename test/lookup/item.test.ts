import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemDocument } from '../../src/http/problem.js';
import { lookupItem } from '../../src/lookup/item.js';
import { LOOKUPS } from '../../src/lookup/operations.js';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';
import { LOOKUP_CASES } from '../helpers/lookup-cases.js';

for (const backend of BACKENDS) {
  describe(`one lookup given as params, on ${backend}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await testApp(backend);
    });
    afterAll(() => t.close());

    it('answers what the single GET answers for the same params', async () => {
      for (const [operation, params] of LOOKUP_CASES) {
        const query = new URLSearchParams(params as Record<string, string>).toString();
        const get = await t.app.inject({
          url: `${operation.path}?${query}`,
          headers: { authorization: t.auth },
        });
        const item = await lookupItem(t.store, operation, params);
        if (item.status === 'matched') {
          expect(get.statusCode, query).toBe(200);
          expect(String(item.record.body)).toBe(get.body);
          expect(item.matchedBy.join(', ')).toBe(get.headers['enrich-matched-by']);
        } else {
          const problem = JSON.parse(problemDocument(item.problem, get.json().request_id));
          expect(problem, query).toEqual(get.json());
          expect(item.status).toBe(
            { 404: 'not_found', 409: 'ambiguous', 400: 'invalid' }[get.statusCode as 404 | 409 | 400],
          );
        }
      }
    });

    it('refuses values that are not strings, and params that are not an object', async () => {
      for (const params of [{ id: 42 }, { id: ['fp000000000001'] }, null, 'id=fp1', [{ id: 'x' }]]) {
        const item = await lookupItem(t.store, LOOKUPS[0]!, params);
        expect(item.status).toBe('invalid');
        if (item.status !== 'matched') expect(item.problem.status).toBe(400);
      }
    });
  });
}
