import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/errors.js';
import { problemDocument } from '../../src/http/problem.js';
import { answerLookup } from '../../src/lookup/answer.js';
import { COMPANY_LOOKUP, type LookupOperation, PEOPLE_LOOKUP } from '../../src/lookup/operations.js';
import { BACKENDS, ROBERT, seed, type TestApp, testApp } from '../helpers/app.js';
import { LOOKUP_CASES } from '../helpers/lookup-cases.js';

/** Besides every identifier's answers: `fields` (valid, unknown, repeated, alone), repeats, a name match. */
const MORE_CASES: Array<[LookupOperation, Record<string, string | string[]>]> = [
  [PEOPLE_LOOKUP as LookupOperation, { id: 'fp000000000001', fields: 'name,emails.work.value' }],
  [PEOPLE_LOOKUP as LookupOperation, { id: 'fp000000000001', fields: 'shoe_size' }],
  [PEOPLE_LOOKUP as LookupOperation, { id: 'fp999999999999', fields: 'shoe_size' }],
  [PEOPLE_LOOKUP as LookupOperation, { id: 'fp000000000001', fields: ['name', 'id'] }],
  [PEOPLE_LOOKUP as LookupOperation, { fields: 'name' }],
  [PEOPLE_LOOKUP as LookupOperation, { work_email: ['jane.citizen@acme.com.au', 'jose@acme.com.au'] }],
  [PEOPLE_LOOKUP as LookupOperation, { name: 'Bob Example', company_domain: 'acme.com.au' }],
  [
    PEOPLE_LOOKUP as LookupOperation,
    { name: 'Bob Example', company_name: 'Acme Holdings', min_likelihood: '9' },
  ],
  [PEOPLE_LOOKUP as LookupOperation, { name: 'Robert' }],
  [COMPANY_LOOKUP as LookupOperation, { fqdn: 'acme.com.au', fields: 'name,industry_codes.abn' }],
];

for (const backend of BACKENDS) {
  describe(`a lookup answered without HTTP, on ${backend}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await testApp(backend);
      await seed(t.store, 'people', [ROBERT]);
    });
    afterAll(() => t.close());

    it('answers every case as GET answers it: the same status, bytes, headers and problem', async () => {
      const statuses: string[] = [];
      const cases = [...(LOOKUP_CASES as Array<[LookupOperation, Record<string, unknown>]>), ...MORE_CASES];
      for (const [operation, params] of cases) {
        const query = new URLSearchParams();
        for (const [name, value] of Object.entries(params))
          for (const one of [value].flat()) query.append(name, String(one));
        const get = await t.app.inject({
          url: `${operation.path}?${query}`,
          headers: { authorization: t.auth },
        });
        let answered: Awaited<ReturnType<typeof answerLookup>> | ProblemError;
        try {
          answered = await answerLookup(t.store, operation, params);
        } catch (error) {
          if (!(error instanceof ProblemError)) throw error;
          answered = error;
        }
        statuses.push(
          answered instanceof ProblemError ? String(answered.status) : `200 ${answered.likelihood ?? ''}`,
        );
        if (answered instanceof ProblemError) {
          expect(answered.status, String(query)).toBe(get.statusCode);
          expect(JSON.parse(problemDocument(answered, get.json().request_id))).toEqual(get.json());
        } else {
          expect(get.statusCode, String(query)).toBe(200);
          expect(String(answered.body)).toBe(get.body);
          expect(answered.etag).toBe(get.headers.etag);
          expect(answered.matchedBy.join(', ')).toBe(get.headers['enrich-matched-by']);
          expect(answered.likelihood?.toString()).toBe(get.headers['enrich-match-likelihood']);
        }
      }
      // Each kind of answer is among them: a match by name with its likelihood too.
      expect(new Set(statuses)).toEqual(new Set(['200 ', '200 8', '400', '404', '409']));
    });
  });
}
