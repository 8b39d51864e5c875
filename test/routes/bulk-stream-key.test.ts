// A bulk stream is held to its key throughout: a key revoked or stripped of its scope mid-stream ends the
// stream within a batch, a stream on which nothing moves is closed, and a key without the scope sends no
// body to be read — on both stores.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';
import { itemLines, postStream } from '../helpers/ndjson.js';

const PERSON = { id: 'fp000000000001' };

/** Lines matched after the moment `mark` was taken, of a stream's results (its last, error, line aside). */
const matchedAfter = (results: Array<Record<string, unknown>>, mark: number) =>
  results.slice(mark).filter((result) => result.status === 'matched').length;

for (const backend of BACKENDS) {
  describe(`a bulk stream and its key, on ${backend}`, () => {
    let t: TestApp;
    let origin: string;
    beforeAll(async () => {
      t = await testApp(backend, { streamIdleTimeoutMs: 600 });
      origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(() => t.close());

    it('ends the stream with a 401 line within one batch of the key being revoked, serving nothing more', async () => {
      // 20 a second: batches of two lines, a tenth of a second apart once the first second's burst is spent.
      const key = await t.newKey({ rate: 20 });
      let seenAtRevoke = Number.POSITIVE_INFINITY;
      let seen = 0;
      let revoking: Promise<unknown> | undefined;
      const stream = await postStream(
        `${origin}/v1/people/bulk`,
        key.auth,
        itemLines(300, () => PERSON),
        {
          onResult: (_result, count) => {
            seen = count;
            if (count !== 30) return;
            revoking = t.store.revokeKey(key.id, new Date()).then(() => {
              seenAtRevoke = seen;
            });
          },
        },
      );
      await revoking;
      expect(stream.status).toBe(200);
      expect(stream.results.at(-1)).toMatchObject({
        status: 'error',
        problem: { code: 'unauthorized', status: 401 },
      });
      // The batch in flight as the revocation committed (and one on the wire) may still arrive; none after.
      expect(matchedAfter(stream.results, seenAtRevoke)).toBeLessThanOrEqual(4);
      expect(stream.count).toBeLessThan(60);
    });

    it('ends the stream with a 403 line once the key loses the scope, serving nothing more', async () => {
      const key = await t.newKey({ rate: 20 });
      let seenAtChange = Number.POSITIVE_INFINITY;
      let seen = 0;
      let changing: Promise<unknown> | undefined;
      const stream = await postStream(
        `${origin}/v1/people/bulk`,
        key.auth,
        itemLines(300, () => PERSON),
        {
          onResult: (_result, count) => {
            seen = count;
            if (count !== 30) return;
            changing = t.store.updateKey(key.id, { scopes: ['company:read'] }).then(() => {
              seenAtChange = seen;
            });
          },
        },
      );
      await changing;
      expect(stream.results.at(-1)).toMatchObject({
        status: 'error',
        problem: { code: 'forbidden', status: 403, required_scope: 'people:read' },
      });
      expect(matchedAfter(stream.results, seenAtChange)).toBeLessThanOrEqual(4);
    });

    it('closes a stream on which nothing moves after the idle time, with a 408 line', async () => {
      const started = performance.now();
      const ending = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${origin}/v1/people/bulk`, {
          method: 'POST',
          agent: false,
          headers: { authorization: t.auth, 'content-type': 'application/x-ndjson' },
        });
        req.on('error', reject);
        req.on('response', (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (text: string) => {
            body += text;
          });
          const done = () => resolve({ status: res.statusCode!, body });
          res.on('end', done);
          res.on('aborted', done);
        });
        // One line, then nothing: the body is never ended.
        req.write(`${JSON.stringify({ params: PERSON })}\n`);
      });
      const elapsed = performance.now() - started;
      expect(ending.status).toBe(200);
      const lines = ending.body
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines[0]).toMatchObject({ status: 'matched' });
      expect(lines.at(-1)).toMatchObject({
        status: 'error',
        problem: { code: 'request_timeout', status: 408 },
      });
      expect(elapsed).toBeGreaterThanOrEqual(500);
      expect(elapsed).toBeLessThan(3_000);
    });

    it("refuses a key without the route's scope 403 before reading or parsing its body", async () => {
      const key = await t.newKey({ scopes: ['company:read'] });
      const started = performance.now();
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/people/bulk',
        headers: { authorization: key.auth, 'content-type': 'application/json' },
        payload: '['.repeat(1_000_000),
      });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'forbidden', required_scope: 'people:read' });
      expect(performance.now() - started).toBeLessThan(1_000);
      const stream = await postStream(
        `${origin}/v1/people/bulk`,
        key.auth,
        itemLines(5, () => PERSON),
      );
      expect(stream.status).toBe(403);
      expect(stream.count).toBe(0);
    });
  });
}
