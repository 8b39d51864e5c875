import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPrefix, REDIS_URL, testPrefix } from './redis.js';
import { bucketAllows, dataSet, hammer, type Server, serve } from './serve.js';

describe('two server processes sharing one Redis', () => {
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

  it('admit no more than one key bucket between them, hammered through both at once', async () => {
    const load = await hammer(
      servers.map((s) => s.url),
      token,
      { seconds: 3 },
    );
    const admitted = load.statuses[200] ?? 0;
    expect(Object.keys(load.statuses).sort()).toEqual(['200', '429']);
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThanOrEqual(bucketAllows(10, load.seconds) + 1);
    expect(load.statuses[429]).toBeGreaterThan(admitted); // the load really was over the limit
  });

  it('finish and exit 0 on SIGTERM', async () => {
    expect(await Promise.all(servers.map((s) => s.stop()))).toEqual([0, 0]);
  });
});
