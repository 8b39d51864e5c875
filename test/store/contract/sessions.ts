// The sessions role's contract (src/store/sessions.ts), run against every backend.
import { expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';

const at = (iso: string) => new Date(iso);

export function sessionsContract(store: () => Store) {
  const session = (seen: string) => ({
    key_id: 'key_a',
    key_hash: 'h'.repeat(64),
    created_at: seen,
    last_seen_at: seen,
  });

  it('finds a session by its hash, and nothing by another', async () => {
    await store().createSession('s1', session('2026-11-28T00:00:00.000Z'));
    expect(await store().findSession('s1')).toEqual(session('2026-11-28T00:00:00.000Z'));
    expect(await store().findSession('s2')).toBeUndefined();
  });

  it('records its last use', async () => {
    await store().createSession('s1', session('2026-11-28T00:00:00.000Z'));
    await store().touchSession('s1', at('2026-11-28T05:00:00.000Z'));
    expect((await store().findSession('s1'))?.last_seen_at).toBe('2026-11-28T05:00:00.000Z');
  });

  it('ends a session once', async () => {
    await store().createSession('s1', session('2026-11-28T00:00:00.000Z'));
    expect(await store().deleteSession('s1')).toBe(true);
    expect(await store().deleteSession('s1')).toBe(false);
    expect(await store().findSession('s1')).toBeUndefined();
  });

  it('prunes the sessions idle since before a time, and only those', async () => {
    await store().createSession('old', session('2026-11-27T00:00:00.000Z'));
    await store().createSession('new', session('2026-11-28T00:00:00.000Z'));
    expect(await store().pruneSessions(at('2026-11-27T12:00:00.000Z'))).toBe(1);
    expect(await store().findSession('old')).toBeUndefined();
    expect(await store().findSession('new')).toBeDefined();
  });
}
