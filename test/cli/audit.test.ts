// enrich audit lists the newest lookups first: --limit N keeps the newest N, as text and as JSON.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/store/accounting.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { enrich } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-audit-'));
const db = join(dir, 'enrich.db');

const lookup = (day: number, key_id: string, status: number): AuditEntry => ({
  at: `2026-03-0${day}T09:00:00.000Z`,
  key_id,
  operation: 'people',
  params: ['work_email'],
  matched: status === 200 ? ['fp000000000001'] : [],
  status,
});

describe('enrich audit', () => {
  beforeAll(async () => {
    const store = openSqliteStore(db);
    // The keys the entries name: `audit --key` refuses an id that names no key.
    for (const id of ['key_a', 'key_b'])
      await store.createKey({
        id,
        name: id,
        hash: id.padEnd(64, '0'),
        scopes: ['people:read'],
        rate: 50,
        quota: null,
        created_at: '2026-03-01T00:00:00.000Z',
        expires_at: null,
        revoked_at: null,
      });
    await store.addAudit([
      lookup(1, 'key_a', 200),
      lookup(2, 'key_b', 200),
      lookup(3, 'key_a', 404),
      lookup(4, 'key_a', 200),
    ]);
    await store.close();
  });

  it("lists a key's lookups newest first", () => {
    const run = enrich(['audit', '--key', 'key_a', '--json', '--db', db]);
    expect(run.status).toBe(0);
    const days = JSON.parse(run.stdout).map((e: AuditEntry) => e.at.slice(0, 10));
    expect(days).toEqual(['2026-03-04', '2026-03-03', '2026-03-01']);
  });

  it("lists a record's lookups newest first, as a table too", () => {
    const json = JSON.parse(enrich(['audit', '--record', 'fp000000000001', '--json', '--db', db]).stdout);
    expect(json.map((e: AuditEntry) => e.key_id)).toEqual(['key_a', 'key_b', 'key_a']);
    const text = enrich(['audit', '--record', 'fp000000000001', '--db', db]).stdout.trim().split('\n');
    expect(text[0]).toMatch(/^TIME\s+KEY/);
    expect(text.slice(1).map((line) => line.slice(0, 10))).toEqual([
      '2026-03-04',
      '2026-03-02',
      '2026-03-01',
    ]);
  });

  it('keeps the newest N with --limit N, and says that older ones were left out', () => {
    const run = enrich(['audit', '--key', 'key_a', '--limit', '2', '--json', '--db', db]);
    expect(JSON.parse(run.stdout).map((e: AuditEntry) => e.status)).toEqual([200, 404]);
    expect(run.stderr).toMatch(/Showing the newest 2/);
  });
});
