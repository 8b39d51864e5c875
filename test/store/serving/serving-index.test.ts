// The serving index follows the store of record through crashes and restores: a writer killed between
// its SQLite commit and the index update is repaired, and an index that no longer matches is rebuilt.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { issueKey } from '../../../src/auth/keys.js';
import { prepareLine } from '../../../src/ingest/prepare.js';
import type { RecordToStore } from '../../../src/store/records.js';
import { AT_ONCE } from '../../../src/store/serving/entity.js';
import { MAX_LISTED } from '../../../src/store/serving/id-lists.js';
import { IN_PARTS, ServingIndex } from '../../../src/store/serving/serving-index.js';
import { openSqliteStore, servingIndexPath } from '../../../src/store/sqlite/store.js';

const DYING_WRITER = fileURLToPath(new URL('./dying-writer.ts', import.meta.url));
const DYING_BETWEEN_PARTS = fileURLToPath(new URL('./dying-between-parts.ts', import.meta.url));
const HELD_WRITER = fileURLToPath(new URL('./held-writer.ts', import.meta.url));
const dirs: string[] = [];
const tempDb = () => {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-index-'));
  dirs.push(dir);
  return join(dir, 'enrich.db');
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const person = (id: string, email: string) => ({ id, name: id, emails: { work: [{ value: email }] } });
const prepared = (record: object) => prepareLine('people', JSON.stringify(record)) as RecordToStore;
/** People p0…p(count-1), each with the work e-mail `<mailbox><n>@acme.com.au`. */
const numbered = (count: number, mailbox: string) =>
  Array.from({ length: count }, (_, n) => prepared(person(`p${n}`, `${mailbox}${n}@acme.com.au`)));
const bodyOf = (records: Array<{ body: Buffer | string }>) => records.map((r) => String(r.body));

/** Writes `record` in a child process killed between its SQLite commit and the index update. */
const killedMidWrite = (path: string, record: object) => {
  const child = spawnSync(process.execPath, ['--import', 'tsx', DYING_WRITER, path, JSON.stringify(record)]);
  expect(child.signal).toBe('SIGKILL');
};

describe('the serving index', () => {
  it('is repaired from SQLite after a writer dies between its commit and the index update', async () => {
    const path = tempDb();
    const server = openSqliteStore(path);
    await server.upsert('people', [prepared(person('p1', 'old@acme.com.au'))]);
    const changed = person('p1', 'new@acme.com.au');
    killedMidWrite(path, changed);
    // SQLite has the new version; the index, not yet: what a server serves until its check runs.
    expect(await server.getRecord('people', 'p1')).toMatchObject({ body: JSON.stringify(changed) });
    expect(bodyOf(server.findRecords('people', 'work_email', 'old@acme.com.au', 11))).toHaveLength(1);
    // A server checks once a second; the check finds the dead writer's intent and repairs what it named.
    expect(server.reconcileIndex()).toBe('repaired');
    expect(server.findRecords('people', 'work_email', 'old@acme.com.au', 11)).toEqual([]);
    expect(bodyOf(server.findRecords('people', 'work_email', 'new@acme.com.au', 11))).toEqual([
      JSON.stringify(changed),
    ]);
    await server.close();
  });

  it("is repaired by a server's watch within seconds, unasked", async () => {
    const path = tempDb();
    const server = openSqliteStore(path);
    const failures: unknown[] = [];
    server.watchIndex((error) => failures.push(error));
    await server.upsert('people', [prepared(person('p1', 'old@acme.com.au'))]);
    const changed = person('p1', 'new@acme.com.au');
    killedMidWrite(path, changed);
    const repaired = () =>
      bodyOf(server.findRecords('people', 'work_email', 'new@acme.com.au', 11)).length === 1;
    for (let waited = 0; !repaired() && waited < 10_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(repaired()).toBe(true);
    expect(server.findRecords('people', 'work_email', 'old@acme.com.au', 11)).toEqual([]);
    expect(failures).toEqual([]);
    await server.close();
  });

  it("leaves a live writer's transaction to it: a server's check does not wait for its write lock", async () => {
    const path = tempDb();
    const dir = dirs.at(-1)!;
    const server = openSqliteStore(path);
    await server.upsert('people', [prepared(person('p1', 'old@acme.com.au'))]);
    const changed = person('p1', 'new@acme.com.au');
    const writer = spawn(process.execPath, [
      '--import',
      'tsx',
      HELD_WRITER,
      path,
      JSON.stringify(changed),
      dir,
    ]);
    const exited = once(writer, 'exit');
    try {
      for (let waited = 0; !existsSync(join(dir, 'HELD')) && waited < 20_000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(existsSync(join(dir, 'HELD'))).toBe(true);
      // SQLite is a generation ahead of the index while the writer applies its changes: its own to finish.
      expect(server.reconcileIndex()).toBe('current');
      expect(existsSync(join(dir, 'ENDED'))).toBe(false);
      expect(bodyOf(server.findRecords('people', 'work_email', 'old@acme.com.au', 11))).toHaveLength(1);
    } finally {
      writeFileSync(join(dir, 'RELEASE'), '');
      await exited;
    }
    expect(writer.exitCode).toBe(0);
    expect(server.reconcileIndex()).toBe('current');
    expect(bodyOf(server.findRecords('people', 'work_email', 'new@acme.com.au', 11))).toEqual([
      JSON.stringify(changed),
    ]);
    await server.close();
  });

  it('is repaired by the next process to open the store', async () => {
    const path = tempDb();
    await openSqliteStore(path).close();
    const added = person('p2', 'p2@acme.com.au');
    spawnSync(process.execPath, ['--import', 'tsx', DYING_WRITER, path, JSON.stringify(added)]);
    const store = openSqliteStore(path);
    expect(bodyOf(store.findRecords('people', 'id', 'p2', 11))).toEqual([JSON.stringify(added)]);
    expect(bodyOf(store.findRecords('people', 'work_email', 'p2@acme.com.au', 11))).toHaveLength(1);
    await store.close();
  });

  it('is rebuilt when the SQLite file is restored from an older copy', async () => {
    const path = tempDb();
    const store = openSqliteStore(path);
    await store.upsert('people', [prepared(person('kept', 'kept@acme.com.au'))]);
    await store.close();
    copyFileSync(path, `${path}.backup`);
    const later = openSqliteStore(path);
    await later.upsert('people', [prepared(person('later', 'later@acme.com.au'))]);
    await later.close();
    copyFileSync(`${path}.backup`, path);
    const restored = openSqliteStore(path);
    expect(restored.findRecords('people', 'id', 'later', 11)).toEqual([]);
    expect(restored.findRecords('people', 'work_email', 'later@acme.com.au', 11)).toEqual([]);
    expect(bodyOf(restored.findRecords('people', 'id', 'kept', 11))).toHaveLength(1);
    await restored.close();
  });

  it('is rebuilt when deleted, and serves what SQLite holds', async () => {
    const path = tempDb();
    const store = openSqliteStore(path);
    await store.upsert('people', [prepared(person('p3', 'p3@acme.com.au'))]);
    await store.close();
    rmSync(servingIndexPath(path));
    const reopened = openSqliteStore(path);
    expect(bodyOf(reopened.findRecords('people', 'work_email', 'p3@acme.com.au', 11))).toHaveLength(1);
    await reopened.close();
  });

  it("after a bulk load, serves every identifier kind from the index, another process's write included", async () => {
    const path = tempDb();
    const store = openSqliteStore(path);
    const fromIndex = vi.spyOn(ServingIndex.prototype, 'findRecords');
    try {
      const bulk = await store.beginBulkLoad!('people');
      const people = Array.from({ length: 2_500 }, (_, n) => ({
        id: `p${String(n).padStart(5, '0')}`,
        name: `Jo Doe${n % 50}`,
        linkedin: `https://www.linkedin.com/in/jo-${n}`,
        emails: { work: [{ value: `p${n}@acme.com.au` }], personal: [{ value: `p${n}@mail.com` }] },
        current_company: { id: 'c1', name: 'Acme Pty Ltd', website: 'acme.com.au', linkedin: 'acme' },
      }));
      await bulk!.upsert(people.slice(0, 1_500).map(prepared));
      // Another writer (a server, say) writes meanwhile, past the load's ids.
      const other = openSqliteStore(path);
      await other.upsert('people', [prepared(person('zz-other', 'other@acme.com.au'))]);
      await other.close();
      await bulk!.upsert(people.slice(1_500).map(prepared));
      // Read from SQLite while the load runs: the index's part is out of service.
      expect(bodyOf(store.findRecords('people', 'id', 'p00007', 11))).toHaveLength(1);
      expect(fromIndex.mock.results.at(-1)?.value).toBeUndefined();
      await bulk!.finish();
      const found = (kind: Parameters<typeof store.findRecords>[1], value: string) => {
        const records = store.findRecords('people', kind, value, 11).map((r) => r.id);
        expect(fromIndex.mock.results.at(-1)?.value).toBeDefined();
        return records;
      };
      expect(found('id', 'p02499')).toEqual(['p02499']);
      expect(found('linkedin', 'jo-1234')).toEqual(['p01234']);
      expect(found('work_email', 'p42@acme.com.au')).toEqual(['p00042']);
      expect(found('personal_email', 'p2000@mail.com')).toEqual(['p02000']);
      expect(found('work_email', 'other@acme.com.au')).toEqual(['zz-other']);
      // A name at the company, by each way of naming it (kinds 8 to 11; 10 and 11 sort first in the index).
      const does7 = people
        .filter((_, n) => n % 50 === 7)
        .map((p) => p.id)
        .slice(0, 11);
      const key = 'Doe7'.toLowerCase();
      for (const kind of [
        'name_at_company_id',
        'name_at_domain',
        'name_at_linkedin',
        'name_at_company_name',
      ] as const) {
        const [entry] = prepared(people[7]!).identifiers.filter(
          (i) => i.kind === kind && i.value.includes(key),
        );
        expect(entry, kind).toBeDefined();
        expect(found(kind, entry!.value)).toEqual(does7);
      }
      expect(store.reconcileIndex()).toBe('current');
    } finally {
      fromIndex.mockRestore();
      await store.close();
    }
  });

  it('is built whole across remaps of its file, and serves what SQLite holds', async () => {
    const path = tempDb();
    const store = openSqliteStore(path);
    await store.upsert('people', numbered(600, 'p'));
    await store.close();
    rmSync(servingIndexPath(path));
    // Pages of 5: 120 transactions of records and more of lists, the file closed and mapped again every 50.
    const pace = { ...AT_ONCE };
    Object.assign(AT_ONCE, { recordPage: 5, identPage: MAX_LISTED + 1 });
    const remap = vi.spyOn(ServingIndex.prototype as unknown as { remap(): void }, 'remap');
    try {
      const reopened = openSqliteStore(path);
      expect(remap.mock.calls.length).toBeGreaterThanOrEqual(2);
      expect(reopened.reconcileIndex()).toBe('current');
      for (const n of [0, 299, 599]) {
        expect(bodyOf(reopened.findRecords('people', 'work_email', `p${n}@acme.com.au`, 11))).toHaveLength(1);
        expect(bodyOf(reopened.findRecords('people', 'id', `p${n}`, 11))).toHaveLength(1);
      }
      await reopened.upsert('people', [prepared(person('p1', 'moved@acme.com.au'))]);
      expect(bodyOf(reopened.findRecords('people', 'work_email', 'moved@acme.com.au', 11))).toHaveLength(1);
      await reopened.close();
    } finally {
      Object.assign(AT_ONCE, pace);
      remap.mockRestore();
    }
  });

  /**
   * Writes p0, then p0…p299 with new e-mails over it: the remaps the large write made, after which each of
   * `found` is served by its new e-mail, so is a small write's record after it, and the index is current.
   */
  const remapsOfLargeWrite = async (found: number[]) => {
    const store = openSqliteStore(tempDb());
    const remap = vi.spyOn(ServingIndex.prototype as unknown as { remap(): void }, 'remap');
    try {
      await store.upsert('people', [prepared(person('p0', 'p0@acme.com.au'))]);
      expect(remap).not.toHaveBeenCalled();
      await store.upsert('people', numbered(300, 'moved'));
      const remaps = remap.mock.calls.length;
      for (const n of found) {
        const served = store.findRecords('people', 'work_email', `moved${n}@acme.com.au`, 11);
        expect(bodyOf(served)).toHaveLength(1);
      }
      expect(store.findRecords('people', 'work_email', 'p0@acme.com.au', 11)).toEqual([]);
      await store.upsert('people', [prepared(person('p1', 'again@acme.com.au'))]);
      expect(bodyOf(store.findRecords('people', 'work_email', 'again@acme.com.au', 11))).toHaveLength(1);
      expect(store.reconcileIndex()).toBe('current');
      await store.close();
      return remaps;
    } finally {
      remap.mockRestore();
    }
  };

  it('applies a write of many changes to a small index in one transaction, and maps its file afresh after it', async () => {
    expect(await remapsOfLargeWrite([0, 150, 299])).toBe(1);
  });

  describe('applying a large write to a large index in parts', () => {
    const fromBytes = IN_PARTS.fromBytes;
    // Every index is large here.
    beforeEach(() => {
      IN_PARTS.fromBytes = 0;
    });
    afterEach(() => {
      IN_PARTS.fromBytes = fromBytes;
    });

    it("maps its file afresh between the parts, and serves the write's records", async () => {
      const { changes } = IN_PARTS;
      // The first part with the commit, then the rest, the file mapped afresh before each and after the last.
      expect(await remapsOfLargeWrite([0, changes - 1, changes, 200, 299])).toBe(
        Math.ceil((300 - changes) / changes) + 1,
      );
    });

    it("ends as SQLite is when another write changes a record between a large write's parts", async () => {
      const path = tempDb();
      const store = openSqliteStore(path);
      const large = numbered(300, 'first');
      const later = person('p200', 'later@acme.com.au');
      const remap = ServingIndex.prototype['remap' as keyof ServingIndex] as unknown as () => void;
      const between: Array<Promise<unknown>> = [];
      const spy = vi
        .spyOn(ServingIndex.prototype as unknown as { remap(): void }, 'remap')
        .mockImplementation(function (this: ServingIndex) {
          remap.call(this);
          // Before the large write's second part: a write of its own (a server's, say) of a record in that part.
          if (between.length === 0) between.push(store.upsert('people', [prepared(later)]));
        });
      try {
        await store.upsert('people', large);
        await Promise.all(between);
        expect(between).toHaveLength(1);
        // A later part of the large write applied p200 as SQLite has it now, not as the large write had it.
        expect(bodyOf(store.findRecords('people', 'id', 'p200', 1))).toEqual([JSON.stringify(later)]);
        expect(store.findRecords('people', 'work_email', 'first200@acme.com.au', 11)).toEqual([]);
        expect(bodyOf(store.findRecords('people', 'work_email', 'later@acme.com.au', 11))).toHaveLength(1);
        expect(bodyOf(store.findRecords('people', 'work_email', 'first299@acme.com.au', 11))).toHaveLength(1);
        // The later write ended first: the large one's end does not take the index back to its generation.
        expect(store.reconcileIndex()).toBe('current');
        await store.close();
      } finally {
        spy.mockRestore();
      }
    });

    it('is repaired by the next process to open the store when a writer dies between the parts of a large write', async () => {
      const path = tempDb();
      const store = openSqliteStore(path);
      await store.upsert('people', numbered(300, 'old'));
      await store.close();
      const child = spawnSync(process.execPath, ['--import', 'tsx', DYING_BETWEEN_PARTS, path]);
      expect(child.signal).toBe('SIGKILL');
      const reopened = openSqliteStore(path);
      // Its first part (p0, p1, …) is in the index; the rest, repaired from SQLite as the store opened.
      for (const n of [0, IN_PARTS.changes - 1, IN_PARTS.changes, 299]) {
        expect(reopened.findRecords('people', 'work_email', `old${n}@acme.com.au`, 11)).toEqual([]);
        expect(bodyOf(reopened.findRecords('people', 'work_email', `new${n}@acme.com.au`, 11))).toHaveLength(
          1,
        );
      }
      expect(reopened.reconcileIndex()).toBe('current');
      await reopened.close();
    });
  });

  describe('built in the background, as a server opens it', () => {
    const PEOPLE = 3_000;
    /** A store of PEOPLE people whose index is gone (as after a restore or an upgrade). */
    const withoutIndex = async () => {
      const path = tempDb();
      const store = openSqliteStore(path, { servingIndex: false });
      const people = numbered(PEOPLE, 'p');
      await store.upsert('people', people);
      await store.close();
      rmSync(servingIndexPath(path), { force: true });
      return path;
    };
    const untilBuilt = async (store: ReturnType<typeof openSqliteStore>) => {
      while (store.indexRebuilding()) await new Promise((resolve) => setImmediate(resolve));
    };

    it('answers from SQLite until the index is in service, writes made meanwhile included', async () => {
      const path = await withoutIndex();
      const fromIndex = vi.spyOn(ServingIndex.prototype, 'findRecords');
      try {
        const store = openSqliteStore(path, { indexInBackground: true });
        expect(store.indexRebuilding()).toBe(true);
        // Answered while the build runs: by SQLite (the index answers undefined, not ready).
        expect(bodyOf(store.findRecords('people', 'work_email', 'p7@acme.com.au', 11))).toHaveLength(1);
        expect(fromIndex.mock.results.at(-1)?.value).toBeUndefined();
        // Writes during the build: a new person, another's e-mail changed, a third deleted.
        await store.upsert('people', [
          prepared(person('new', 'new@acme.com.au')),
          prepared(person(`p${PEOPLE - 1}`, 'moved@acme.com.au')),
        ]);
        await store.delete('people', ['p5']);
        await untilBuilt(store);
        expect(store.reconcileIndex()).toBe('current');
        const found = (kind: 'id' | 'work_email', value: string) => {
          const records = bodyOf(store.findRecords('people', kind, value, 11));
          expect(fromIndex.mock.results.at(-1)?.value).toBeDefined();
          return records;
        };
        expect(found('work_email', 'p7@acme.com.au')).toHaveLength(1);
        expect(found('work_email', 'new@acme.com.au')).toHaveLength(1);
        expect(found('work_email', 'moved@acme.com.au')).toHaveLength(1);
        expect(found('work_email', `p${PEOPLE - 1}@acme.com.au`)).toEqual([]);
        expect(found('id', 'p5')).toEqual([]);
        expect(found('work_email', 'p5@acme.com.au')).toEqual([]);
        expect(found('id', `p${PEOPLE - 2}`)).toHaveLength(1);
        await store.close();
      } finally {
        fromIndex.mockRestore();
      }
    });

    it("says in /metrics whether every part is in service, and a server's lookups answer either way", async () => {
      const path = await withoutIndex();
      const store = openSqliteStore(path, { indexInBackground: true, turnSnapshots: true });
      // The companies' part is held out of service by a bulk load (the build on its thread may have ended
      // by the time the app is up: a 3,000-person build takes a fraction of a second).
      const bulk = await store.beginBulkLoad!('companies');
      const app = await buildApp({ store });
      try {
        const { token } = await issueKey(store, { name: 'reader', rate: 1000 });
        const serving = async () =>
          /^enrich_serving_index_serving (\d)$/m.exec((await app.inject({ url: '/metrics' })).body)?.[1];
        const lookup = () =>
          app.inject({
            url: '/v1/people?work_email=p42@acme.com.au',
            headers: { authorization: `Bearer ${token}` },
          });
        expect(await serving()).toBe('0');
        expect((await lookup()).json()).toMatchObject({ id: 'p42' });
        await bulk!.finish();
        await untilBuilt(store);
        expect(await serving()).toBe('1');
        expect((await lookup()).json()).toMatchObject({ id: 'p42' });
      } finally {
        await app.close();
        await store.close();
      }
    });

    it('closed half-way, is built by the next opening', async () => {
      const path = await withoutIndex();
      const server = openSqliteStore(path, { indexInBackground: true });
      expect(server.indexRebuilding()).toBe(true);
      await server.close();
      const next = openSqliteStore(path);
      expect(next.indexRebuilding()).toBe(false);
      expect(next.reconcileIndex()).toBe('current');
      expect(bodyOf(next.findRecords('people', 'work_email', `p${PEOPLE - 1}@acme.com.au`, 11))).toHaveLength(
        1,
      );
      await next.close();
    });

    it('gives way to a bulk load begun in the same process, and builds the other entity', async () => {
      const path = await withoutIndex();
      const store = openSqliteStore(path, { indexInBackground: true });
      // No companies yet: loading them is a bulk load, which takes their part of the index over.
      const bulk = await store.beginBulkLoad!('companies');
      expect(bulk).toBeDefined();
      const company = { id: 'c1', name: 'Acme', website: 'acme.com.au' };
      await bulk!.upsert([prepareLine('companies', JSON.stringify(company)) as RecordToStore]);
      await untilBuilt(store);
      await bulk!.finish();
      expect(bodyOf(store.findRecords('companies', 'domain', 'acme.com.au', 11))).toEqual([
        JSON.stringify(company),
      ]);
      expect(bodyOf(store.findRecords('people', 'work_email', 'p9@acme.com.au', 11))).toHaveLength(1);
      expect(store.reconcileIndex()).toBe('current');
      await store.close();
    });
  });
});
