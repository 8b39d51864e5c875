// Issue 20's "done when": generate → import → evolve → a --snapshot refresh → the feed lists exactly the events
// expected-changes.ndjson holds (type, data and order), on SQLite and on PostgreSQL, through the real binary.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { enrich, type Run } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-refresh-feed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ok = (run: Run) => {
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  return run;
};

/** The events `enrich changes --json` prints after `after`, and the cursor it says to resume from. */
function changes(where: string[], env: Record<string, string>, after?: string) {
  const run = ok(enrich(['changes', '--json', ...where, ...(after ? ['--after', after] : [])], env));
  const events = run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { id: string; type: string; timestamp: string; data: unknown });
  const next = /^next: (\S+)$/m.exec(run.stderr)?.[1];
  expect(next).toBeDefined();
  return { events, next: next! };
}

describe.each(['sqlite', 'postgres'] as const)('on %s', (backend) => {
  let database: TestDatabase | undefined;
  afterAll(() => database?.drop());

  it('lists the events of a snapshot refresh exactly as evolve expects them, in order', async () => {
    const set = join(dir, `set-${backend}`);
    const next = join(dir, `set-${backend}-1`);
    ok(enrich(['generate', '--companies', '200', '--people', '2000', '--seed', '7', '--out', set]));
    ok(enrich(['evolve', '--in', set, '--out', next, '--months', '3', '--seed', '7']));
    let where: string[] = [];
    let env: Record<string, string> = {};
    if (backend === 'sqlite') {
      where = ['--db', join(dir, `${backend}.db`)];
    } else {
      database = await createTestDatabase();
      env = { DATABASE_URL: database.url };
    }
    ok(enrich(['import', 'companies', join(set, 'companies.ndjson'), ...where], env));
    ok(enrich(['import', 'people', join(set, 'people.ndjson'), ...where], env));
    const before = changes(where, env);
    expect(before.events.length).toBeGreaterThanOrEqual(2200);
    const refresh = ['--snapshot', '--force', ...where];
    ok(enrich(['import', 'companies', join(next, 'companies.ndjson'), ...refresh], env));
    ok(enrich(['import', 'people', join(next, 'people.ndjson'), ...refresh], env));
    const after = changes(where, env, before.next);
    const expected = readFileSync(join(next, 'expected-changes.ndjson'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));
    expect(expected.length).toBeGreaterThan(50);
    // Exactly, in order: the file lists events as a refresh commits them (docs/changes.md).
    expect(after.events.map(({ type, data }) => ({ type, data }))).toEqual(expected);
    // Ids are unique and in commit order; every event has its commit time.
    const ids = after.events.map((e) => e.id);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const e of after.events) expect(e.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Nothing more: the feed is caught up.
    expect(changes(where, env, after.next).events).toEqual([]);
  }, 300_000);
});
