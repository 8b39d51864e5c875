// Bulk lookups against real `enrich serve` processes: a long stream in constant memory, and each item charged
// to the key's one bucket whichever worker or instance serves it (the cluster primary's, Redis's).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemLines, postStream } from '../helpers/ndjson.js';
import { dropPrefix, REDIS_URL, testPrefix } from './redis.js';
import { dataSet, PERSON_ID, type Server, serve } from './serve.js';

/** The process's own memory (heap, stacks, buffers), not the files it maps. */
function rssAnonBytes(pid: number): number {
  const line = /RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? 0) * 1024;
}

const bulkOf = (url: string, token: string, n: number) =>
  fetch(`${url}/v1/people/bulk`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ requests: Array.from({ length: n }, () => ({ params: { id: PERSON_ID } })) }),
  });

describe('a long stream through one server process', () => {
  const { db, token } = dataSet(1_000_000);
  let server: Server;
  beforeAll(async () => {
    // A JavaScript heap far smaller than the stream's results: a server that held them would run out. The
    // audit log is off here: its own memory (SQLite's page cache, the folding thread) fills up to its
    // caches whatever the path, and would hide what the stream holds. The young generation is capped at
    // 4 MB a semi-space: Node 24's V8 grows it, once, by some 100 MB when many objects survive its
    // collections (a batch's items in flight do), at a moment of its choosing, often between the two
    // windows below; it then stays at that size (flat from the 300,000th to the 900,000th result).
    const env = {
      NODE_OPTIONS: '--max-old-space-size=64 --max-semi-space-size=4',
      ENRICH_ACCOUNTING: 'false',
    };
    server = await serve(['--db', db, '--workers', '1'], env);
  });
  afterAll(() => server.stop());

  it('answers 400,000 lines in order without holding them: its memory stays flat', async () => {
    const url = `${server.url}/v1/people/bulk`;
    const pid = server.child.pid!;
    // The most memory the process held while it answered the 150,000th to 250,000th results, and the
    // 300,000th to 400,000th: a server that held its results would grow by some 40 MB between them; one that
    // does not levels off once its heap, buffers and allocator have sized themselves (which, on a busy
    // machine, takes more than the warm-up of the first 50,000, and on Node 24 over 100,000).
    let early = 0;
    let late = 0;
    let inOrder = true;
    let bytes = 0;
    const stream = await postStream(
      url,
      `Bearer ${token}`,
      itemLines(400_000, () => ({ id: PERSON_ID })),
      {
        keep: false,
        onResult: (result, count) => {
          if (result.ref !== String(count - 1) || result.status !== 'matched') inOrder = false;
          bytes += JSON.stringify(result).length + 1;
          if (count % 10_000 !== 0) return;
          if (count >= 150_000 && count <= 250_000) early = Math.max(early, rssAnonBytes(pid));
          if (count >= 300_000) late = Math.max(late, rssAnonBytes(pid));
        },
      },
    );
    expect(stream.count).toBe(400_000);
    expect(inOrder).toBe(true);
    // 400,000 results are over 128 MB, 100,000 of them over 40 MB; the server grew by a fraction of that.
    expect(bytes).toBeGreaterThan(128 * 1024 * 1024);
    expect(late - early).toBeLessThan(16 * 1024 * 1024);
  }, 120_000);

  it('answers the first 1,000,000 lines and ends with a 413 line for a longer stream', async () => {
    const url = `${server.url}/v1/people/bulk`;
    let last: Record<string, unknown> = {};
    const stream = await postStream(
      url,
      `Bearer ${token}`,
      itemLines(1_000_050, () => ({ id: 'fp1' })),
      {
        keep: false,
        onResult: (result) => {
          last = result;
        },
      },
    );
    expect(stream.count).toBe(1_000_001);
    expect(last).toMatchObject({
      status: 'error',
      problem: { code: 'payload_too_large', status: 413, max_items: 1_000_000 },
    });
  }, 120_000);
});

describe('bulks through two cluster workers', () => {
  const { db, token } = dataSet(10);
  let server: Server;
  beforeAll(async () => {
    server = await serve(['--db', db, '--workers', '2']);
  });
  afterAll(() => server.stop());

  it("charge every item to the primary's one bucket: after a bulk of 30 at 10/s, the next waits 2 s or more", async () => {
    const first = await bulkOf(server.url, token, 30);
    expect(first.status).toBe(200);
    expect((await first.json()).summary.matched).toBe(30);
    // Whichever worker takes them, the next requests find the bucket in debt.
    const next = await Promise.all([1, 2, 3, 4].map(() => bulkOf(server.url, token, 1)));
    expect(next.map((r) => r.status)).toEqual([429, 429, 429, 429]);
    // 20 tokens short: over 2 s to wait (3, rounded up, unless the machine took 100 ms meanwhile).
    expect(Number(next[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(2);
  });
});

describe('bulks through two instances sharing Redis', () => {
  const prefix = testPrefix();
  const { db, token } = dataSet(10);
  let servers: Server[] = [];
  beforeAll(async () => {
    const env = { REDIS_URL, ENRICH_REDIS_PREFIX: prefix };
    servers = await Promise.all([1, 2].map(() => serve(['--db', db, '--workers', '1'], env)));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await dropPrefix(prefix);
  });

  it("charge every item to the key's bucket in Redis: a bulk through one leaves the other refusing", async () => {
    const [a, b] = servers;
    expect((await bulkOf(a!.url, token, 30)).status).toBe(200);
    const refused = await bulkOf(b!.url, token, 1);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(2);
  });
});
