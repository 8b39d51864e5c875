// An entity's part of the serving index is built in the index's key order (records by id, then each kind's
// lists by value, the kinds in their keys' order), appended where it can be, and put in place where not.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { buildEntity, type EntityDbs, inKeyOrder, readRecords } from '../../../src/store/serving/entity.js';
import { MAX_LISTED } from '../../../src/store/serving/id-lists.js';
import type { IndexSource, SourceRow } from '../../../src/store/serving/source.js';
import { IDENTIFIER_KIND_CODES } from '../../../src/store/sql/tables.js';

const envs: Array<{ env: RootDatabase; dir: string }> = [];
afterEach(async () => {
  for (const { env, dir } of envs.splice(0)) {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

const openPart = (): { env: RootDatabase; dbs: EntityDbs } => {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-entity-'));
  const env = open({ path: join(dir, 'index'), noSync: true, maxDbs: 4, pageSize: 16_384 });
  envs.push({ env, dir });
  const dbs = {
    records: env.openDB<Buffer, string>({ name: 'people', encoding: 'binary' }),
    idents: env.openDB<string, string>({ name: 'people_ident', encoding: 'string' }),
  };
  return { env, dbs };
};

/** A store of record in memory, read as SQLite's index source reads: by id, and by kind then value then id. */
function sourceOf(rows: SourceRow[]): IndexSource {
  const sorted = [...rows].sort((a, b) => Buffer.compare(Buffer.from(a.id), Buffer.from(b.id)));
  const idents = sorted.flatMap((row) =>
    (JSON.parse(row.idents) as Array<[number, string]>).map(([kind, value]) => ({ kind, value, id: row.id })),
  );
  const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  return {
    storeId: () => 'store',
    generation: () => 1,
    rows: (_entity, ids) => sorted.filter((row) => ids.includes(row.id)),
    page: (_entity, afterId, limit) => sorted.filter((row) => bytes(row.id, afterId) > 0).slice(0, limit),
    identPage: (_entity, kind, after, limit) =>
      idents
        .filter((i) => i.kind === kind && (after === undefined || bytes(i.value, after) > 0))
        .sort((a, b) => bytes(a.value, b.value) || bytes(a.id, b.id))
        .slice(0, limit)
        .map((i) => [i.value, i.id]),
  };
}

const row = (id: string, idents: Array<[number, string]>): SourceRow => ({
  id,
  etag: `"${id}"`,
  body: JSON.stringify({ id }),
  idents: JSON.stringify(idents),
});

const build = (
  env: RootDatabase,
  dbs: EntityDbs,
  source: IndexSource,
  pace?: Parameters<typeof buildEntity>[4],
) => {
  const steps = buildEntity(
    () => ({ env, dbs }),
    source,
    'people',
    inKeyOrder(Object.values(IDENTIFIER_KIND_CODES)),
    pace,
  );
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
};

const ids = (dbs: EntityDbs, kind: number, value: string) =>
  readRecords(dbs, 'work_email', value, 100, kind)?.map((record) => record.id);

describe("an entity's part built from the store of record", () => {
  it('orders the kinds as their keys sort: 10 and 11 before 1', () => {
    expect(inKeyOrder([1, 2, 9, 10, 11])).toEqual([10, 11, 1, 2, 9]);
  });

  it('holds every record and every list, whatever the kind', () => {
    const { env, dbs } = openPart();
    const rows = Array.from({ length: MAX_LISTED + 100 }, (_, n) =>
      row(`p${String(n).padStart(4, '0')}`, [
        [1, `slug-${n}`],
        [2, `p${n}@acme.com.au`],
        [10, `doe|acme-${n % 7}`],
        [11, `doe|acme pty ltd`],
      ]),
    );
    // Small pages: lists run across pages, and every kind takes several transactions.
    const pace = { recordPage: 16, identPage: MAX_LISTED + 1, sliceMs: 0 };
    expect(build(env, dbs, sourceOf(rows), pace)).toBe(true);
    expect([...dbs.records.getKeys()]).toHaveLength(MAX_LISTED + 100);
    expect(ids(dbs, 2, 'p42@acme.com.au')).toEqual(['p0042']);
    expect(ids(dbs, 1, 'slug-1099')).toEqual(['p1099']);
    for (let k = 0; k < 7; k++) {
      const expected = rows.filter((_, n) => n % 7 === k).map((r) => r.id);
      expect(ids(dbs, 10, `doe|acme-${k}`)).toEqual(expected.slice(0, 100));
    }
    // Everyone shares one name at one company: more than a list holds, so it is marked crowded.
    expect(ids(dbs, 11, 'doe|acme pty ltd')).toBeUndefined();
  });

  it('puts in place what cannot be appended: a key another write put past the build, one lmdb sorts elsewhere', () => {
    const { env, dbs } = openPart();
    // Written by another process while the build ran: past every key the build reads.
    env.transactionSync(() => {
      dbs.records.putSync('zz-other', Buffer.from([0, 0, 0, 0, 0]));
      dbs.idents.putSync('2:zz@other.com', 'zz-other');
    });
    // Characters below 5 take two bytes in lmdb's keys: these sort differently there than in SQLite.
    const rows = [
      row('a1', [[2, 'x\u0001y@acme.com.au']]),
      row('a2', [[2, 'x\u0003@acme.com.au']]),
      row('a3', [[2, `x\u0002${'y'.repeat(80)}@acme.com.au`]]),
      row('a4', [[2, 'x\u0005@acme.com.au']]),
    ];
    expect(build(env, dbs, sourceOf(rows))).toBe(true);
    expect([...dbs.records.getKeys()]).toEqual(['a1', 'a2', 'a3', 'a4', 'zz-other']);
    expect(ids(dbs, 2, 'x\u0001y@acme.com.au')).toEqual(['a1']);
    expect(ids(dbs, 2, 'x\u0003@acme.com.au')).toEqual(['a2']);
    expect(ids(dbs, 2, `x\u0002${'y'.repeat(80)}@acme.com.au`)).toEqual(['a3']);
    expect(ids(dbs, 2, 'x\u0005@acme.com.au')).toEqual(['a4']);
    expect(dbs.idents.get('2:zz@other.com')).toBe('zz-other');
  });
});
