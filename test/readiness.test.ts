import { describe, expect, it } from 'vitest';
import { localIndexStanding, readiness } from '../src/readiness.js';
import type { LocalIndexStatus } from '../src/store/store.js';
import { StoreUnavailableError } from '../src/store/unavailable.js';

const REFUSED = 'connect ECONNREFUSED 127.0.0.1:5432';
const pingFails = {
  ping: async () => {
    throw new Error(REFUSED);
  },
  sizeBytes: async () => 0,
};
const pingAnswers = { ping: async () => {}, sizeBytes: async () => 0 };

/** A server whose local index stands so, as readiness asks about it. */
const withLocalIndex = (status: Partial<LocalIndexStatus>) => {
  const local: LocalIndexStatus = {
    phase: 'following',
    problem: undefined,
    appliedAt: undefined,
    serving: true,
    ...status,
  };
  return { store: (pingFailed?: unknown) => localIndexStanding({ localStatus: () => local }, pingFailed) };
};

describe('readiness of a server on PostgreSQL with a local index', () => {
  it('is degraded, not down, when its ping fails before the local index has found PostgreSQL gone', async () => {
    expect(await readiness(pingFails, undefined, withLocalIndex({}))).toEqual({
      degraded: [`postgres: unreachable (${REFUSED}); lookups answer from the local index, writes fail`],
    });
  });

  it('names the local index’s own reason once it has one', async () => {
    const answer = await readiness(
      pingFails,
      undefined,
      withLocalIndex({ problem: 'terminating connection' }),
    );
    expect(answer.degraded).toEqual([
      'postgres: unreachable (terminating connection); lookups answer from the local index, writes fail',
    ]);
  });

  it('is down when the local index does not serve lookups yet', async () => {
    const answer = await readiness(
      pingFails,
      undefined,
      withLocalIndex({ phase: 'building', serving: false }),
    );
    expect(answer.problem).toBeInstanceOf(StoreUnavailableError);
    expect(answer.degraded).toEqual([]);
  });

  it('is ready when PostgreSQL answers and the local index has nothing to say', async () => {
    expect(await readiness(pingAnswers, undefined, withLocalIndex({}))).toEqual({ degraded: [] });
  });
});
