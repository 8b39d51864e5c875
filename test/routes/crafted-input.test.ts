// Crafted input a security review sent: each a 400 naming the limit it crosses, never a 500 — one bad item of
// a bulk being one invalid item — and a problem that stays small whatever the body, on both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IDENTIFIER_BYTES } from '../../src/identifiers/key-bytes.js';
import { MAX_DETAIL_SHOWN, MAX_PATH_SHOWN } from '../../src/lookup/bulk-request.js';
import { MAX_JSON_DEPTH } from '../../src/schemas/json-text.js';
import { MAX_WORDS } from '../../src/schemas/search.js';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';
import { postStream } from '../helpers/ndjson.js';

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** 1,400 characters once decoded, 4,200 bytes: within the 2,048 characters a value may hold. */
const EURO_SLUG = '%E2%82%AC'.repeat(1400);

for (const backend of BACKENDS) {
  describe(`crafted input, on ${backend}`, () => {
    let t: TestApp;
    let origin: string;
    beforeAll(async () => {
      t = await testApp(backend);
      origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(() => t.close());

    const post = (url: string, payload: string) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { authorization: t.auth, 'content-type': 'application/json' },
        payload,
      });

    const get = (url: string) => t.app.inject({ url, headers: { authorization: t.auth } });

    describe('an identifier of more bytes than the index takes', () => {
      it('is a 400 naming the limit, on every lookup', async () => {
        for (const url of [
          `/people?ln_slug=${EURO_SLUG}`,
          `/v1/people?ln_url=linkedin.com/in/${EURO_SLUG}`,
          `/people?work_email=${'%C3%A9'.repeat(600)}@acme.com.au`,
          `/company?ln_slug=${EURO_SLUG}`,
          `/people?name=Jane+${'%E4%B8%AD'.repeat(200)}&company_name=${'%E4%B8%AD'.repeat(200)}`,
        ]) {
          const response = await get(url);
          expect(response.statusCode, url).toBe(400);
          expect(response.json(), url).toMatchObject({
            code: 'invalid_parameter',
            max_bytes: MAX_IDENTIFIER_BYTES,
          });
          expect(response.json().detail, url).toContain('longer than 1,024 bytes');
        }
      });

      it('is one invalid item of a 1,000-item bulk, the others answered', async () => {
        const requests = Array.from({ length: 1000 }, (_, i) => ({
          params: i === 500 ? { ln_slug: decodeURIComponent(EURO_SLUG) } : { id: 'fp000000000001' },
          ref: String(i),
        }));
        const response = await post('/v1/people/bulk', JSON.stringify({ requests }));
        expect(response.statusCode).toBe(200);
        const { results, summary } = response.json();
        expect(summary).toMatchObject({ matched: 999, invalid: 1 });
        expect(results[500]).toMatchObject({ ref: '500', status: 'invalid' });
        expect(results[500].problem).toMatchObject({ parameter: 'ln_slug', max_bytes: MAX_IDENTIFIER_BYTES });
      });

      it('is one invalid line of a stream, which goes on', async () => {
        const stream = await postStream(`${origin}/v1/people/bulk`, t.auth, [
          JSON.stringify({ params: { ln_slug: decodeURIComponent(EURO_SLUG) }, ref: 'long' }),
          JSON.stringify({ params: { id: 'fp000000000001' }, ref: 'next' }),
        ]);
        expect(stream.results.map((r) => [r.ref, r.status])).toEqual([
          ['long', 'invalid'],
          ['next', 'matched'],
        ]);
      });
    });

    it('a record nested 200,000 levels deep, stored before imports refused it, is served', async () => {
      const deepest = `{"id":"f000000000099","name":"Deep","nextGen":{"web_traffic":{"traffic_share":{"countries":{"AU":${deep(200_000)}}}}}}`;
      await t.store.upsert('companies', [
        { id: 'f000000000099', body: deepest, etag: '"deep"', identifiers: [] },
      ]);
      const selected = await get('/company?id=f000000000099&fields=name,nextGen');
      expect(selected.statusCode).toBe(200);
      expect(selected.body).toBe(deepest);
      const requests = [{ params: { id: 'f000000000099' } }, { params: { id: 'f000000000001' } }];
      for (const fields of [undefined, ['name', 'nextGen']]) {
        const response = await post('/v1/company/bulk', JSON.stringify({ requests, fields }));
        expect(response.statusCode).toBe(200);
        expect(response.json().summary).toMatchObject({ matched: 2 });
      }
    });

    it('a search of more words than a value may hold is a 400 naming the limit', async () => {
      const cjk = Array.from({ length: 1024 }, (_, i) => String.fromCharCode(0x4e00 + i)).join(' ');
      const words = Array.from({ length: 125 }, (_, i) => `word${i}`).join(' ');
      for (const [url, body, parameter] of [
        ['/v1/people/search', { filters: { location: ['australia', cjk] } }, 'filters.location'],
        ['/v1/people/search', { q: words }, 'q'],
        ['/v1/company/search', { q: words }, 'q'],
      ] as const) {
        const response = await post(url, JSON.stringify(body));
        expect(response.statusCode, parameter).toBe(400);
        expect(response.json()).toMatchObject({ code: 'invalid_parameter', parameter, max_words: MAX_WORDS });
      }
      const compatible = await t.app.inject({
        method: 'POST',
        url: `/people/search?position=${encodeURIComponent(words)}`,
        headers: { authorization: t.auth },
      });
      expect(compatible.json()).toMatchObject({ parameter: 'position', max_words: MAX_WORDS });
    });

    describe('a body nested too deep', () => {
      it('of four million brackets gets a 400 of a few hundred bytes naming the limit', async () => {
        const response = await post('/v1/people/bulk', '['.repeat(4_000_000));
        expect(response.statusCode).toBe(400);
        expect(response.body.length).toBeLessThan(1000);
        const problem = response.json();
        expect(problem).toMatchObject({ code: 'invalid_body', max_depth: MAX_JSON_DEPTH, line: 1 });
        expect(problem.path.length).toBeLessThanOrEqual(MAX_PATH_SHOWN);
        expect(problem.detail.length).toBeLessThanOrEqual(MAX_DETAIL_SHOWN);
        expect(problem.detail).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
      });

      it('is refused by every route that reads JSON, however it is sent', async () => {
        const bodies: Record<string, string> = {
          '/v1/people/bulk': `{"requests": [{"params": {"id": ${deep(10_000)}}}]}`,
          '/v1/company/bulk': `{"requests": [{"params": {"id": ${deep(10_000)}}}]}`,
          '/v1/people/search': `{"q": ${deep(10_000)}}`,
          '/v1/company/search': `{"filters": {"industry": ${deep(10_000)}}}`,
          '/v1/people/lookup': `{"id": ${deep(10_000)}}`,
        };
        for (const [url, body] of Object.entries(bodies)) {
          const response = await post(url, body);
          expect(response.statusCode, url).toBe(400);
          expect(response.json().code, url).toBe('invalid_body');
          expect(response.json().detail, url).toContain(`${MAX_JSON_DEPTH} levels`);
        }
      });

      it('as one line of a stream is one invalid line; the stream goes on', async () => {
        const stream = await postStream(`${origin}/v1/people/bulk`, t.auth, [
          `{"params": {"id": ${deep(50_000)}}, "ref": "deep"}`,
          JSON.stringify({ params: { id: 'fp000000000001' }, ref: 'next' }),
        ]);
        expect(stream.results.map((r) => r.status)).toEqual(['invalid', 'matched']);
        expect(stream.results[0]!.problem).toMatchObject({ code: 'invalid_body', line: 1 });
      });

      it('within the limit is read as before', async () => {
        const nested = `{"requests": [{"params": {"id": "fp000000000001"}, "ref": "a"}], "fields": ["name"]}`;
        const response = await post('/v1/people/bulk', nested);
        expect(response.statusCode).toBe(200);
      });
    });
  });
}
