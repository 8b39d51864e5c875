// The bulk helpers against a real `enrich serve`: long lists in chunks, order kept, fields, 429s waited out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inChunks } from '../src/chunks.js';
import { Enrich, EnrichError, type PeopleBulkResult } from '../src/index.js';
import { startServer, type TestServer } from './server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
}, 120_000);
afterAll(() => t?.server.stop());

const PEOPLE_IDS = ['fp000000000001', 'fp000000000002', 'fp000000000003', 'fp999999999999'];

/** A client of the test server, counting the requests it sends and the refs each asked for. */
function client(token: string) {
  const bodies: string[][] = [];
  const enrich = new Enrich({
    baseUrl: t.url,
    token,
    fetch: async (request) => {
      const { requests } = (await request.clone().json()) as { requests: Array<{ ref?: string }> };
      bodies.push(requests.map((item) => item.ref ?? ''));
      return fetch(request);
    },
  });
  return { enrich, sent: () => bodies.length, bodies };
}

describe('bulk lookups', () => {
  it('send a long list as requests of at most 1,000 items and give every result back in order', async () => {
    const { enrich, bodies } = client(t.tokens.full);
    const items = Array.from({ length: 2_500 }, (_, i) => ({
      params: { id: PEOPLE_IDS[i % 4]! },
      ref: `row-${i}`,
    }));
    const { results, summary } = await enrich.peopleBulk(items);
    // Three chunks (the key's 1,000 a second may send a later one back with a 429 first, then retried).
    const chunks = [...new Map(bodies.map((refs) => [refs[0], refs])).values()];
    expect(chunks.map((refs) => refs.length).sort((a, b) => b - a)).toEqual([1000, 1000, 500]);
    expect(results.map((r) => r.ref)).toEqual(items.map((item) => item.ref));
    expect(summary).toEqual({ matched: 1875, not_found: 625, ambiguous: 0, invalid: 0, quota_exceeded: 0 });
    const first = results[0] as Extract<PeopleBulkResult, { status: 'matched' }>;
    expect(first.record.name).toBe('Jane Citizen');
    expect(first.matched_by).toEqual(['id']);
    const missing = results[3] as Exclude<PeopleBulkResult, { status: 'matched' }>;
    expect(missing.problem.code).toBe('not_found');
  });

  it('select fields, and look companies up too', async () => {
    const { enrich } = client(t.tokens.full);
    const { results } = await enrich.companyBulk([{ params: { abn: '51 824 753 556' } }], {
      fields: ['name'],
    });
    expect(results).toEqual([
      { status: 'matched', matched_by: ['abn'], record: { id: 'f000000000001', name: 'Acme Holdings' } },
    ]);
  });

  it("wait out the 429s a slow key's rate answers, as Retry-After says, and finish", async () => {
    const { enrich, sent } = client(t.tokens.slow);
    const items = PEOPLE_IDS.slice(0, 3).map((id) => ({ params: { id } }));
    const started = Date.now();
    const { summary } = await enrich.peopleBulk(items, { chunkSize: 1, concurrency: 1 });
    expect(summary.matched).toBe(3);
    expect(sent()).toBeGreaterThan(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
  });

  it('reject with the first error, sending no further chunk', async () => {
    const { enrich, sent } = client(t.tokens.companyOnly);
    const items = PEOPLE_IDS.map((id) => ({ params: { id } }));
    const error = await enrich.peopleBulk(items, { chunkSize: 1, concurrency: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnrichError);
    expect((error as EnrichError).status).toBe(403);
    expect(sent()).toBe(1);
  });
});

describe('chunks', () => {
  it('are sent at most `concurrency` at a time, their answers kept in order', async () => {
    let running = 0;
    let most = 0;
    const answers = await inChunks([1, 2, 3, 4, 5, 6, 7], 2, 2, async (chunk) => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, chunk[0] === 1 ? 30 : 5));
      running--;
      return chunk;
    });
    expect(answers).toEqual([[1, 2], [3, 4], [5, 6], [7]]);
    expect(most).toBe(2);
  });

  it('stop at the first failure and abort the calls in flight', async () => {
    const aborted: number[] = [];
    const failing = inChunks([1, 2, 3, 4], 1, 2, (chunk, signal) => {
      if (chunk[0] === 2) return Promise.reject(new Error('refused'));
      return new Promise((_, reject) =>
        signal.addEventListener('abort', () => {
          aborted.push(chunk[0]!);
          reject(signal.reason);
        }),
      );
    });
    await expect(failing).rejects.toThrow('refused');
    expect(aborted).toEqual([1]);
  });
});
