// When PostgreSQL goes away the store fails fast with StoreUnavailableError, and recovers by itself on its return.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres, openPostgresStore, type PostgresStore } from '../../../src/store/postgres/store.js';
import type { RecordToStore } from '../../../src/store/records.js';
import { StoreUnavailableError } from '../../../src/store/unavailable.js';
import { type PgInstance, startPgInstance } from '../../helpers/pg-instance.js';

const jane: RecordToStore = {
  id: 'fp000000000001',
  body: '{"id":"fp000000000001"}',
  etag: '"1"',
  identifiers: [{ kind: 'linkedin', value: 'jane' }],
};

/** Retries `attempt` until it resolves, returning how long that took; gives up after `withinMs`. */
async function timeToSucceed(attempt: () => Promise<unknown>, withinMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      await attempt();
      return Date.now() - started;
    } catch (err) {
      if (Date.now() - started > withinMs) throw err;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** Resolves once the server reports a COPY in progress. */
async function untilCopyRuns(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await timeToSucceed(async () => {
      const { rows } = await client.query('SELECT count(*)::int AS n FROM pg_stat_progress_copy');
      if (rows[0]?.n === 0) throw new Error('no COPY yet');
    }, 10_000);
  } finally {
    await client.end();
  }
}

describe('postgres store during an outage', () => {
  let server: PgInstance;
  let store: PostgresStore;
  const connectionErrors: Error[] = [];

  beforeAll(async () => {
    server = await startPgInstance();
    await migratePostgres(server.url);
    store = await openPostgresStore({
      url: server.url,
      poolSize: 4,
      onConnectionError: (err) => connectionErrors.push(err),
    });
    await store.upsert('people', [jane]);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await server?.destroy();
  });

  // Several idle pooled connections are open when the server goes, as in a busy service.
  const warmUp = () =>
    Promise.all(Array.from({ length: 4 }, () => store.findIds('people', 'linkedin', 'jane', 5)));

  it('fails an import caught mid-COPY with StoreUnavailableError, keeping none of it', async () => {
    const batch = Array.from({ length: 30_000 }, (_, n) => ({
      ...jane,
      id: `fp9${String(n).padStart(11, '0')}`,
      body: `{"n":${n},"pad":"${'x'.repeat(1500)}"}`,
      identifiers: [{ kind: 'work_email' as const, value: `p${n}@x.com` }],
    }));
    const outcome = store.upsert('people', batch).then(
      () => 'stored',
      (err: unknown) => err,
    );
    await untilCopyRuns(server.url);
    await server.stop('immediate');
    const failure = await outcome;
    await server.start();
    await timeToSucceed(() => store.ping(), 10_000);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(await store.count('people')).toBe(1);
  });

  for (const mode of ['fast', 'immediate'] as const) {
    it(`rejects every operation with StoreUnavailableError after a ${mode} shutdown and resumes within seconds of restart`, async () => {
      await warmUp();
      connectionErrors.length = 0;
      await server.stop(mode);

      await expect(store.findIds('people', 'linkedin', 'jane', 5)).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      await expect(store.getRecord('people', jane.id)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.findKeyByHash('h')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.upsert('people', [jane])).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.count('people')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      // The idle connections' failures were reported to the handler instead of crashing the process.
      expect(connectionErrors.length).toBeGreaterThan(0);

      await server.start();
      const recoveredInMs = await timeToSucceed(() => store.ping(), 10_000);
      expect(recoveredInMs).toBeLessThan(5_000);
      expect(await store.findIds('people', 'linkedin', 'jane', 5)).toEqual([jane.id]);
      await store.upsert('people', [{ ...jane, etag: `"${mode}"` }]);
      expect((await store.getRecord('people', jane.id))?.etag).toBe(`"${mode}"`);
    });
  }
});
