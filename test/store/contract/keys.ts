// The keys role's contract on every backend: keys created, found by any hash they had, updated, rotated, revoked.
import { beforeEach, expect, it } from 'vitest';
import type { ApiKey, KeyStore } from '../../../src/store/keys.js';

const key = (id: string, created_at: string, overrides: Partial<ApiKey> = {}): ApiKey => ({
  id,
  name: `key ${id}`,
  hash: `hash-${id}`,
  scopes: ['people:read'],
  rate: 50,
  quota: null,
  search_quota: null,
  created_at,
  expires_at: null,
  revoked_at: null,
  ...overrides,
});

/** Registers the keys contract's tests; `open()` is the suite's fresh, empty store. */
export function keysContract(open: () => KeyStore) {
  let store: KeyStore;
  beforeEach(() => {
    store = open();
  });

  it('creates, finds, lists and revokes keys', async () => {
    const second = key('k2', '2025-01-02T00:00:00.000Z', {
      scopes: ['people:read', 'company:read'],
      rate: 7,
      quota: 1000,
      expires_at: '2026-01-01T00:00:00.000Z',
    });
    await store.createKey(second);
    await store.createKey(key('k1', '2025-01-01T00:00:00.000Z'));
    const rotation = { previous_hash: null, previous_expires_at: null };
    expect(await store.findKeyByHash('hash-k2')).toEqual({ ...second, ...rotation });
    expect(await store.getKey('k2')).toEqual({ ...second, ...rotation });
    expect(await store.getKey('nope')).toBeUndefined();
    expect(await store.findKeyByHash('hash-nope')).toBeUndefined();
    expect((await store.listKeys()).map((k) => k.id)).toEqual(['k1', 'k2']);

    expect(await store.revokeKey('k2', new Date('2025-03-01T00:00:00.000Z'))).toBe(true);
    expect(await store.revokeKey('k2', new Date('2025-04-01T00:00:00.000Z'))).toBe(false);
    expect(await store.revokeKey('missing', new Date())).toBe(false);
    expect((await store.findKeyByHash('hash-k2'))?.revoked_at).toBe('2025-03-01T00:00:00.000Z');
  });

  it("updates a key's settings in place: only those given, seen by the next lookup by hash", async () => {
    const original = key('k1', '2025-01-01T00:00:00.000Z', { quota: 10 });
    await store.createKey(original);
    await store.createKey(key('k2', '2025-01-02T00:00:00.000Z'));
    const rotation = { previous_hash: null, previous_expires_at: null };
    expect(await store.findKeyByHash('hash-k1')).toEqual({ ...original, ...rotation });

    const changes = { rate: 7, scopes: ['people:read', 'company:read'] as ApiKey['scopes'] };
    expect(await store.updateKey('k1', changes)).toBe(true);
    const updated = { ...original, ...rotation, ...changes };
    expect(await store.findKeyByHash('hash-k1')).toEqual(updated);
    expect(await store.getKey('k1')).toEqual(updated);

    const expiry = { name: 'renamed', quota: null, expires_at: '2027-01-31T00:00:00.000Z' };
    expect(await store.updateKey('k1', expiry)).toBe(true);
    expect(await store.findKeyByHash('hash-k1')).toEqual({ ...updated, ...expiry });
    expect(await store.updateKey('k1', { quota: 500, expires_at: null })).toBe(true);
    expect(await store.getKey('k1')).toEqual({ ...updated, ...expiry, quota: 500, expires_at: null });
    expect(await store.getKey('k2')).toEqual({ ...key('k2', '2025-01-02T00:00:00.000Z'), ...rotation });

    expect(await store.updateKey('missing', { rate: 1 })).toBe(false);
    await store.revokeKey('k2', new Date('2025-03-01T00:00:00.000Z'));
    expect(await store.updateKey('k2', { rate: 1 })).toBe(false);
    expect((await store.getKey('k2'))?.rate).toBe(50);
  });

  it('keeps a search allowance apart from the quota: set at creation, changed and removed alone', async () => {
    const original = key('k1', '2025-01-01T00:00:00.000Z', { quota: 10, search_quota: 5000 });
    await store.createKey(original);
    expect(await store.findKeyByHash('hash-k1')).toMatchObject({ quota: 10, search_quota: 5000 });
    expect(await store.updateKey('k1', { search_quota: 200 })).toBe(true);
    expect(await store.getKey('k1')).toMatchObject({ quota: 10, search_quota: 200 });
    expect(await store.updateKey('k1', { quota: null })).toBe(true);
    expect(await store.getKey('k1')).toMatchObject({ quota: null, search_quota: 200 });
    expect(await store.updateKey('k1', { search_quota: null })).toBe(true);
    expect(await store.findKeyByHash('hash-k1')).toMatchObject({ quota: null, search_quota: null });
  });

  it('refuses a second key with the same hash', async () => {
    await store.createKey(key('k1', '2025-01-01T00:00:00.000Z'));
    await expect(
      store.createKey(key('k2', '2025-01-01T00:00:00.000Z', { hash: 'hash-k1' })),
    ).rejects.toThrow();
  });

  it('rotates a key: a new hash, the old one kept as previous until the grace ends', async () => {
    await store.createKey(key('k1', '2025-01-01T00:00:00.000Z'));
    const until = new Date('2025-01-02T00:00:00.000Z');
    expect(await store.rotateKey('k1', 'hash-new', until)).toBe(true);
    const rotated = await store.findKeyByHash('hash-new');
    expect(rotated).toMatchObject({
      id: 'k1',
      hash: 'hash-new',
      previous_hash: 'hash-k1',
      previous_expires_at: '2025-01-02T00:00:00.000Z',
    });
    expect(await store.findKeyByHash('hash-k1')).toEqual(rotated);

    expect(await store.rotateKey('k1', 'hash-newer', until)).toBe(true);
    const twice = await store.findKeyByHash('hash-newer');
    expect(twice).toMatchObject({ id: 'k1', hash: 'hash-newer', previous_hash: 'hash-new' });
    // Every token a key ever had still names it, so that it answers as rotated out, not as unknown.
    expect(await store.findKeyByHash('hash-new')).toEqual(twice);
    expect(await store.findKeyByHash('hash-k1')).toEqual(twice);
    expect(await store.rotateKey('k1', 'hash-newest', until)).toBe(true);
    for (const old of ['hash-k1', 'hash-new', 'hash-newer']) {
      expect((await store.findKeyByHash(old))?.hash).toBe('hash-newest');
    }
    expect(await store.findKeyByHash('hash-unknown')).toBeUndefined();
    expect(await store.rotateKey('missing', 'hash-x', until)).toBe(false);
    await store.revokeKey('k1', new Date());
    expect(await store.rotateKey('k1', 'hash-x', until)).toBe(false);
    expect((await store.findKeyByHash('hash-k1'))?.revoked_at).not.toBeNull();
  });
}
