// enrich keys update: a key's settings change in place; its id, token and usage stay.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../../src/auth/tokens.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { enrich } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-keys-'));
const db = join(dir, 'enrich.db');

/** Creates a key; returns its id and token. */
function createKey(...options: string[]) {
  const run = enrich(['keys', 'create', '--name', 'partner', ...options, '--db', db]);
  expect(run.status).toBe(0);
  return { id: /Created key (key_\w+)/.exec(run.stdout)![1]!, token: run.stdout.trim().split('\n').at(-1)! };
}

describe('enrich keys update', () => {
  it('changes name, rate, quota, scopes and expiry, and the same token keeps working', async () => {
    const { id, token } = createKey('--rate', '5', '--quota', '10', '--scopes', 'people:read');
    const run = enrich([
      ...['keys', 'update', id, '--name', 'partner (renewed)', '--rate', '20', '--quota', '500'],
      ...['--scopes', 'people:read,company:read', '--expires', '2099-06-30', '--json', '--db', db],
    ]);
    expect(run.status).toBe(0);
    expect(run.stdout).not.toMatch(/enr_/);
    expect(JSON.parse(run.stdout)).toMatchObject({
      id,
      name: 'partner (renewed)',
      rate: 20,
      quota: 500,
      scopes: ['people:read', 'company:read'],
      expires_at: '2099-06-30T00:00:00.000Z',
      state: 'active',
    });
    const store = openSqliteStore(db);
    expect(await store.findKeyByHash(hashToken(token))).toMatchObject({
      id,
      hash: hashToken(token),
      rate: 20,
    });
    await store.close();
  });

  it('removes a quota with none and an expiry with never, leaving the rest as it was', () => {
    const { id } = createKey('--rate', '7', '--quota', '10', '--expires', '2099-01-01');
    const run = enrich(['keys', 'update', id, '--quota', 'none', '--expires', 'never', '--db', db]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Updated key ${id}\\.\\n`));
    expect(run.stdout).toMatch(/quota\s+none/);
    expect(run.stdout).toMatch(/expires\s+never/);
    const key = JSON.parse(enrich(['keys', 'list', '--json', '--db', db]).stdout).find(
      (k: { id: string }) => k.id === id,
    );
    expect(key).toMatchObject({ name: 'partner', rate: 7, quota: null, expires_at: null });
  });

  it('asks for at least one change, with the usage hint', () => {
    const { id } = createKey();
    const run = enrich(['keys', 'update', id, '--db', db]);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      'error: give at least one of --name, --rate, --quota, --scopes or --expires\n' +
        'Run "enrich keys update --help" for usage.\n',
    );
  });

  it('refuses an unknown key, a revoked key and bad values, changing nothing', () => {
    const unknown = enrich(['keys', 'update', 'key_nosuchkey', '--rate', '9', '--db', db]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('enrich: no key key_nosuchkey\n');

    const { id } = createKey('--rate', '3');
    for (const bad of [
      ['--rate', '0'],
      ['--quota', 'lots'],
      ['--scopes', 'root'],
      ['--expires', '2001-01-01'],
      ['--name', ''],
    ]) {
      const run = enrich(['keys', 'update', id, ...bad, '--db', db]);
      expect(run.status, bad.join(' ')).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`option '${bad[0]} <\\w+>' argument '.*' is invalid`));
    }
    expect(enrich(['keys', 'revoke', id, '--db', db]).status).toBe(0);
    const revoked = enrich(['keys', 'update', id, '--rate', '9', '--db', db]);
    expect(revoked.status).toBe(1);
    expect(revoked.stderr).toBe(`enrich: key ${id} is revoked: its settings cannot change\n`);
    const key = JSON.parse(enrich(['keys', 'show', id, '--json', '--db', db]).stdout);
    expect(key).toMatchObject({ rate: 3, name: 'partner', state: 'revoked' });
  });
});

describe('a key id that names no key', () => {
  it.each([
    ['keys show', ['keys', 'show', 'key_nosuchkey']],
    ['keys update', ['keys', 'update', 'key_nosuchkey', '--rate', '9']],
    ['keys rotate', ['keys', 'rotate', 'key_nosuchkey']],
    ['keys revoke', ['keys', 'revoke', 'key_nosuchkey']],
    ['usage --key', ['usage', '--key', 'key_nosuchkey']],
    ['usage --key --json', ['usage', '--key', 'key_nosuchkey', '--json']],
    ['audit --key', ['audit', '--key', 'key_nosuchkey']],
    ['audit --key --json', ['audit', '--key', 'key_nosuchkey', '--json']],
  ])('gets one answer from %s: "no key", exit 1, no empty report', (_command, args) => {
    createKey(); // the store exists and holds a key, just not this one
    const run = enrich([...args, '--db', db]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('enrich: no key key_nosuchkey\n');
  });

  it('is told apart from a revoked key by rotate and revoke', () => {
    const { id } = createKey();
    expect(enrich(['keys', 'revoke', id, '--db', db]).status).toBe(0);
    const again = enrich(['keys', 'revoke', id, '--db', db]);
    expect([again.status, again.stderr]).toEqual([1, `enrich: key ${id} is revoked already\n`]);
    const rotate = enrich(['keys', 'rotate', id, '--db', db]);
    expect([rotate.status, rotate.stderr]).toEqual([
      1,
      `enrich: key ${id} is revoked: it cannot be rotated\n`,
    ]);
  });
});
