// enrich import --snapshot, run as a user runs it, on SQLite and on PostgreSQL: a refresh from a generated set
// to its evolved month, the guard, --dry-run, SIGKILL half-way, and lookups during a refresh (both stores).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';
import { enrich, startEnrich } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-snapshot-'));
const start = join(dir, 'start');
const next = join(dir, 'next');
const file = (set: string, entity: string) => join(set, `${entity}.ndjson`);

beforeAll(() => {
  const args = ['generate', '--companies', '100', '--people', '2000', '--seed', '5', '--out', start];
  expect(enrich(args).status).toBe(0);
  expect(enrich(['evolve', '--in', start, '--out', next, '--seed', '5', '--months', '2']).status).toBe(0);
});

/** What expected-changes.ndjson says a refresh to `next` does to people. */
function expectedPeople() {
  const events = readFileSync(join(next, 'expected-changes.ndjson'), 'utf8').trim().split('\n');
  const count = (type: string) => events.filter((line) => JSON.parse(line).type === type).length;
  const lines = readFileSync(file(next, 'people'), 'utf8').trim().split('\n').length;
  const inserted = count('person.created');
  const updated = count('person.updated');
  return { inserted, updated, unchanged: lines - inserted - updated, removed: count('person.removed') };
}

const ids = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line).id as string);

interface Backend {
  name: string;
  prepare(): void;
  /** A fresh, empty store's CLI arguments and environment. */
  fresh(): Promise<{ args: string[]; env: Record<string, string> }>;
  open(): Promise<Store>;
}

let database: TestDatabase | undefined;
let sqlitePath = '';
const BACKENDS: Backend[] = [
  {
    name: 'sqlite',
    prepare: () => {},
    fresh: async () => {
      sqlitePath = join(mkdtempSync(join(dir, 'db-')), 'enrich.db');
      return { args: ['--db', sqlitePath], env: {} };
    },
    open: async () => openSqliteStore(sqlitePath),
  },
  {
    name: 'postgres',
    prepare: () => {
      beforeAll(async () => {
        database = await createTestDatabase();
      });
      afterAll(() => database?.drop());
    },
    fresh: async () => {
      await database!.truncate();
      return { args: [], env: { DATABASE_URL: database!.url } };
    },
    open: () => openPostgresStore({ url: database!.url, poolSize: 2 }),
  },
];

for (const backend of BACKENDS) {
  describe(`enrich import --snapshot on ${backend.name}`, () => {
    backend.prepare();
    let target: { args: string[]; env: Record<string, string> };
    const run = (...args: string[]) => enrich([...args, ...target.args], target.env);
    const stored = async () => {
      const store = await backend.open();
      try {
        const all: string[] = [];
        for await (const page of store.exportIds('people')) all.push(...page);
        return all;
      } finally {
        await store.close();
      }
    };
    const storedBodies = async () => {
      const store = await backend.open();
      try {
        const all: string[] = [];
        for await (const body of store.exportBodies('people')) all.push(body);
        return all;
      } finally {
        await store.close();
      }
    };
    const lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n');

    beforeAll(async () => {
      target = await backend.fresh();
      expect(run('import', 'companies', file(start, 'companies')).status).toBe(0);
      expect(run('import', 'people', file(start, 'people')).status).toBe(0);
    });

    it('counts a dry run as the refresh will, and writes nothing', async () => {
      const dry = run('import', 'people', file(next, 'people'), '--snapshot', '--dry-run', '--json');
      expect(dry.stderr).toBe('');
      expect(dry.status).toBe(0);
      const counts = JSON.parse(dry.stdout);
      expect(counts).toMatchObject({
        entity: 'people',
        snapshot: true,
        dry_run: true,
        would_refuse: null,
        rejected: 0,
        ...expectedPeople(),
      });
      expect((await stored()).sort()).toEqual(ids(file(start, 'people')).sort());
    });

    it('makes the entity exactly the files: inserted, updated, unchanged, removed as the month made them', async () => {
      const refresh = run('import', 'people', file(next, 'people'), '--snapshot');
      expect(refresh.status, refresh.stderr).toBe(0);
      const e = expectedPeople();
      expect(refresh.stdout).toMatch(
        new RegExp(
          `people snapshot refreshed: ${e.inserted} inserted, ${e.updated} updated, ${e.unchanged} unchanged, ${e.removed} removed, 0 rejected of \\d+ lines in [\\d.]+ s\\n$`,
        ),
      );
      expect((await stored()).sort()).toEqual(ids(file(next, 'people')).sort());
      expect((await storedBodies()).sort()).toEqual(lines(file(next, 'people')).sort());
      // Run again: nothing left to do.
      const again = JSON.parse(run('import', 'people', file(next, 'people'), '--snapshot', '--json').stdout);
      expect(again).toMatchObject({
        inserted: 0,
        updated: 0,
        removed: 0,
        unchanged: ids(file(next, 'people')).length,
      });
    });

    it('skips the lines it has stored, but a later line of an id the file names twice wins', async () => {
      // The stored people, the first one's line changed and put first: its stored line, later, wins.
      const current = lines(file(next, 'people'));
      const first = JSON.parse(current[0]!) as { id: string; headline: string };
      const changed = JSON.stringify({ ...first, headline: `${first.headline} (changed)` });
      // And one stored line padded with blanks, which the import trims: the same record.
      const padded = [changed, ...current.slice(0, -1), `  ${current.at(-1)}\t`];
      const twice = join(dir, `twice-${backend.name}.ndjson`);
      writeFileSync(twice, `${padded.join('\n')}\n`);
      const refresh = run('import', 'people', twice, '--snapshot', '--json');
      expect(refresh.status, refresh.stderr).toBe(0);
      expect(JSON.parse(refresh.stdout)).toMatchObject({
        inserted: 0,
        updated: 2,
        unchanged: current.length - 1,
        removed: 0,
      });
      expect((await storedBodies()).sort()).toEqual(current.sort());
    });

    it('refuses a snapshot that would remove more than --max-remove before changing anything; --force removes', async () => {
      const lines = readFileSync(file(next, 'people'), 'utf8').trim().split('\n');
      const half = join(dir, `half-${backend.name}.ndjson`);
      writeFileSync(half, `${lines.slice(0, Math.floor(lines.length / 2)).join('\n')}\n`);
      const before = await stored();
      const refused = run('import', 'people', half, '--snapshot');
      expect(refused.status).toBe(1);
      const removing = before.length - Math.floor(lines.length / 2);
      expect(refused.stderr).toContain(
        `enrich: the snapshot would remove ${removing} of ${before.length} people (${((100 * removing) / before.length).toFixed(1)}%), more than --max-remove 10%: nothing was changed`,
      );
      expect(run('import', 'people', half, '--snapshot', '--max-remove', '40').status).toBe(1);
      // A dry run past the guard still counts, says the real run would be refused, and exits 1.
      const dry = run('import', 'people', half, '--snapshot', '--dry-run', '--json');
      expect(dry.status).toBe(1);
      expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, removed: removing });
      expect(JSON.parse(dry.stdout).would_refuse).toContain(
        `would remove ${removing} of ${before.length} people`,
      );
      expect(dry.stderr).toContain('without --dry-run, refused: the snapshot would remove');
      expect(await stored()).toEqual(before);
      const forced = JSON.parse(run('import', 'people', half, '--snapshot', '--force', '--json').stdout);
      expect(forced).toMatchObject({ removed: removing, inserted: 0 });
      expect((await stored()).length).toBe(before.length - removing);
    });

    it('takes --max-remove, --force and --dry-run only with --snapshot', () => {
      const wrong = run('import', 'people', file(next, 'people'), '--force');
      expect(wrong.status).toBe(1);
      expect(wrong.stderr).toMatch(/--max-remove, --force and --dry-run go with --snapshot/);
    });
  });
}

describe('a refresh killed half-way, and lookups during one (SQLite)', () => {
  it('leaves every old record in place when killed, and finishes when run again', async () => {
    const db = join(mkdtempSync(join(dir, 'kill-')), 'enrich.db');
    expect(enrich(['import', 'people', file(start, 'people'), '--db', db]).status).toBe(0);
    const old = new Set(ids(file(start, 'people')));
    const fresh = new Set(ids(file(next, 'people')));
    for (const delay of [150, 400, 800]) {
      const running = startEnrich(['import', 'people', file(next, 'people'), '--snapshot', '--db', db]);
      await new Promise((resolve) => setTimeout(resolve, delay));
      running.child.kill('SIGKILL');
      await running.done;
      const store = openSqliteStore(db);
      const now = new Set<string>();
      for await (const page of store.exportIds('people')) for (const id of page) now.add(id);
      await store.close();
      // Either no removal happened (every old record is there) or all of them did: never half.
      const removedSoFar = [...old].filter((id) => !now.has(id) && !fresh.has(id)).length;
      const toRemove = [...old].filter((id) => !fresh.has(id)).length;
      expect([0, toRemove]).toContain(removedSoFar);
      for (const id of now) expect(old.has(id) || fresh.has(id)).toBe(true);
    }
    const finish = enrich(['import', 'people', file(next, 'people'), '--snapshot', '--db', db]);
    expect(finish.status, finish.stderr).toBe(0);
    const store = openSqliteStore(db);
    const now: string[] = [];
    for await (const page of store.exportIds('people')) now.push(...page);
    await store.close();
    expect(now.sort()).toEqual([...fresh].sort());
  });

  it('finds every record present before and after, throughout a refresh', async () => {
    const db = join(mkdtempSync(join(dir, 'lookups-')), 'enrich.db');
    expect(enrich(['import', 'people', file(start, 'people'), '--db', db]).status).toBe(0);
    const fresh = new Set(ids(file(next, 'people')));
    const kept = ids(file(start, 'people')).filter((id) => fresh.has(id));
    const store = openSqliteStore(db, { turnSnapshots: true });
    try {
      const running = startEnrich(['import', 'people', file(next, 'people'), '--snapshot', '--db', db]);
      let exited = false;
      running.done.then(() => (exited = true));
      let lookups = 0;
      const missing: string[] = [];
      while (!exited) {
        store.reconcileIndex();
        for (const id of kept) {
          lookups++;
          if (store.findRecords('people', 'id', id, 1).length === 0) missing.push(id);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect((await running.done).status).toBe(0);
      expect(missing).toEqual([]);
      expect(lookups).toBeGreaterThan(kept.length);
    } finally {
      await store.close();
    }
  });
});

describe('a refresh killed half-way, and lookups during one (PostgreSQL)', () => {
  let pg: TestDatabase;
  beforeAll(async () => {
    pg = await createTestDatabase();
  });
  afterAll(() => pg?.drop());
  const env = () => ({ DATABASE_URL: pg.url });
  const storedIds = async () => {
    const store = await openPostgresStore({ url: pg.url, poolSize: 2 });
    try {
      const all = new Set<string>();
      for await (const page of store.exportIds('people')) for (const id of page) all.add(id);
      return all;
    } finally {
      await store.close();
    }
  };

  it('leaves every old record in place when killed, and finishes when run again', async () => {
    await pg.truncate();
    expect(enrich(['import', 'people', file(start, 'people')], env()).status).toBe(0);
    const old = new Set(ids(file(start, 'people')));
    const fresh = new Set(ids(file(next, 'people')));
    const toRemove = [...old].filter((id) => !fresh.has(id)).length;
    for (const delay of [300, 800, 1500]) {
      const running = startEnrich(['import', 'people', file(next, 'people'), '--snapshot'], env());
      await new Promise((resolve) => setTimeout(resolve, delay));
      running.child.kill('SIGKILL');
      await running.done;
      const now = await storedIds();
      const removedSoFar = [...old].filter((id) => !now.has(id) && !fresh.has(id)).length;
      expect([0, toRemove]).toContain(removedSoFar);
      for (const id of now) expect(old.has(id) || fresh.has(id)).toBe(true);
    }
    const finish = enrich(['import', 'people', file(next, 'people'), '--snapshot'], env());
    expect(finish.status, finish.stderr).toBe(0);
    expect([...(await storedIds())].sort()).toEqual([...fresh].sort());
  }, 60_000);

  it('finds every record present before and after, throughout a refresh', async () => {
    await pg.truncate();
    expect(enrich(['import', 'people', file(start, 'people')], env()).status).toBe(0);
    const fresh = new Set(ids(file(next, 'people')));
    const kept = ids(file(start, 'people')).filter((id) => fresh.has(id));
    const store = await openPostgresStore({ url: pg.url, poolSize: 4 });
    try {
      const running = startEnrich(['import', 'people', file(next, 'people'), '--snapshot'], env());
      let exited = false;
      running.done.then(() => (exited = true));
      let lookups = 0;
      const missing: string[] = [];
      while (!exited) {
        for (let i = 0; i < kept.length && !exited; i += 50) {
          const batch = kept.slice(i, i + 50);
          const found = await Promise.all(batch.map((id) => store.findRecords('people', 'id', id, 1)));
          lookups += batch.length;
          found.forEach((records, n) => {
            if (records.length === 0) missing.push(batch[n]!);
          });
        }
      }
      expect((await running.done).status).toBe(0);
      expect(missing).toEqual([]);
      expect(lookups).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  }, 60_000);
});
