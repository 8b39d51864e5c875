// Paging through a search while records are imported between pages: every record there throughout is
// returned exactly once, by cursors whatever ids arrive, and by from/size while new ids sort after.
import { afterEach, describe, expect, it } from 'vitest';
import { generatePeople } from '../../src/generate/index.js';
import { Invalid, prepareLine } from '../../src/ingest/prepare.js';
import type { RecordToStore } from '../../src/store/records.js';
import { BACKENDS, type TestApp, testApp } from '../helpers/app.js';

const prepared = (records: object[]) =>
  records.map((r) => {
    const line = prepareLine('people', JSON.stringify(r));
    if (line instanceof Invalid) throw new Error(line.message);
    return line as RecordToStore;
  });

/** 1,200 people to page through; an import of 600 more, ids before and after theirs, and edits of theirs. */
const PAGED = [...generatePeople({ companies: 50, people: 1200, seed: 11, idStart: 5_000 })];
const BEFORE = [...generatePeople({ companies: 50, people: 300, seed: 11, idStart: 1_000 })];
const AFTER = [...generatePeople({ companies: 50, people: 300, seed: 11, idStart: 90_000 })];
const EDITED = PAGED.slice(0, 300).map((p) => ({ ...p, headline: `${p.headline} (edited)` }));

/** Imports the next slice of new records (and edits) after each page: the import runs as pages are read. */
function importer(t: TestApp, batches: object[][]) {
  let next = 0;
  return async () => {
    const batch = batches[next++];
    if (batch) await t.store.upsert('people', prepared(batch));
  };
}

const slices = (records: object[], size: number) =>
  Array.from({ length: Math.ceil(records.length / size) }, (_, i) => records.slice(i * size, (i + 1) * size));

const everyone = { seniority: [1, 2, 3, 4, 5, 6, 7] };

describe.each(BACKENDS)('paging on %s under a concurrent import', (backend) => {
  let t: TestApp;
  afterEach(() => t.close());

  const start = async () => {
    t = await testApp(backend);
    await t.store.upsert('people', prepared(PAGED));
    // Only these people have a seniority among the test app's records.
    return new Set(PAGED.filter((p) => p.seniority !== null).map((p) => p.id));
  };

  it('returns every record once with cursors, whatever ids the import adds', async () => {
    const wanted = await start();
    const imports = importer(t, slices([...BEFORE, ...AFTER, ...EDITED], 60));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/people/search',
        headers: { authorization: t.auth },
        payload: { filters: everyone, size: 50, fields: ['person_id'], ...(cursor ? { cursor } : {}) },
      });
      expect(res.statusCode).toBe(200);
      const page = res.json() as { results: Array<{ person_id: string }>; next: string | null };
      seen.push(...page.results.map((r) => r.person_id));
      cursor = page.next ?? undefined;
      await imports();
    } while (cursor);
    const ofThem = seen.filter((id) => wanted.has(id));
    expect(ofThem.length).toBe(wanted.size);
    expect(new Set(ofThem).size).toBe(wanted.size);
    expect(new Set(seen).size).toBe(seen.length);
  }, 60_000);

  it('returns every record once with from and size, while new ids sort after them', async () => {
    await start();
    const all = await t.store.searchPeople({ filters: { countries: ['AU'] }, limit: 5_000 });
    const wanted = new Set(all.hits.map((hit) => hit.id));
    expect(wanted.size).toBeGreaterThan(500);
    const imports = importer(t, slices([...AFTER, ...EDITED], 60));
    const seen: string[] = [];
    for (let from = 0; ; from += 50) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/people/search?selectedCountry=AU&from=${from}&size=50`,
        headers: { authorization: t.auth },
      });
      expect(res.statusCode).toBe(200);
      const page = res.json() as Array<{ person_id: string }>;
      seen.push(...page.map((p) => p.person_id));
      await imports();
      if (page.length < 50) break;
    }
    expect(seen.filter((id) => wanted.has(id)).length).toBe(wanted.size);
    expect(new Set(seen).size).toBe(seen.length);
  }, 60_000);
});
