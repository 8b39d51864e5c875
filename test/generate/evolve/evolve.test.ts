import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evolveDataset } from '../../../src/generate/evolve/index.js';
import { writeDataset } from '../../../src/generate/index.js';
import { Company } from '../../../src/schemas/company.js';
import { Person } from '../../../src/schemas/person.js';
import { classifySnapshots, expectedChanges, linesById } from '../../helpers/snapshot-diff.js';

const root = mkdtempSync(path.join(tmpdir(), 'enrich-evolve-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dir = (name: string) => path.join(root, name);

const records = <T>(set: string, entity: 'companies' | 'people') =>
  new Map([...linesById(dir(set), entity)].map(([id, line]) => [id, JSON.parse(line) as T]));
const typesOf = (set: string) => expectedChanges(dir(set)).map((event) => event.type);

beforeAll(async () => {
  await writeDataset({ companies: 600, people: 6000, seed: 11, out: dir('start') });
  await evolveDataset({ in: dir('start'), out: dir('month'), seed: 1, months: 1 });
  await evolveDataset({ in: dir('start'), out: dir('year'), seed: 1, months: 12 });
  // An evolved set evolved again: people who left work in the first year now come back.
  await evolveDataset({ in: dir('year'), out: dir('later'), seed: 1, months: 6 });
});

describe('enrich evolve', () => {
  it('expects exactly the events the classifier finds between the two snapshots, in the same order', () => {
    for (const [from, to] of [
      ['start', 'month'],
      ['start', 'year'],
      ['year', 'later'],
    ] as const) {
      expect(expectedChanges(dir(to))).toEqual(classifySnapshots(dir(from), dir(to)));
    }
  });

  it('writes every record in the documented shape', () => {
    for (const set of ['month', 'year', 'later']) {
      const badCompany = [...records<Company>(set, 'companies').values()].find(
        (c) => !Value.Check(Company, c),
      );
      expect(badCompany && [...Value.Errors(Company, badCompany)].slice(0, 3)).toBeUndefined();
      const badPerson = [...records<Person>(set, 'people').values()].find((p) => !Value.Check(Person, p));
      expect(badPerson && [...Value.Errors(Person, badPerson)].slice(0, 3)).toBeUndefined();
    }
  });

  it('changes about 2% of people in a month, and copies everyone else byte for byte', () => {
    const before = linesById(dir('start'), 'people');
    const after = linesById(dir('month'), 'people');
    const changed = [...after].filter(([id, line]) => before.has(id) && before.get(id) !== line).length;
    const created = [...after.keys()].filter((id) => !before.has(id)).length;
    const removed = [...before.keys()].filter((id) => !after.has(id)).length;
    expect((changed + created + removed) / before.size).toBeGreaterThan(0.012);
    expect((changed + created + removed) / before.size).toBeLessThan(0.03);
    // A line that differs at all is one the simulation changed: no record is rewritten for nothing.
    expect(typesOf('month').filter((type) => type === 'person.updated')).toHaveLength(changed);
  });

  it('produces every kind of change a labour market makes', () => {
    const types = new Set([...typesOf('year'), ...typesOf('later')]);
    expect([...types].sort()).toEqual([
      'company.created',
      'company.removed',
      'company.updated',
      'person.created',
      'person.job_changed',
      'person.removed',
      'person.title_changed',
      'person.updated',
    ]);
    const data = [...expectedChanges(dir('year')), ...expectedChanges(dir('later'))].map(
      (e) => e.data as Record<string, unknown>,
    );
    const changes = new Set(data.map((d) => d.change).filter(Boolean));
    expect([...changes].sort()).toEqual(['departure', 'joined', 'new_company']);
    expect(data.some((d) => d.promotion === true)).toBe(true);
    expect(data.some((d) => d.promotion === false)).toBe(true);
  });

  it('moves people with a new job, an address at the new domain and the old job kept as past', () => {
    const before = records<Person>('start', 'people');
    const after = records<Person>('month', 'people');
    const companies = records<Company>('month', 'companies');
    const moves = expectedChanges(dir('month')).filter(
      (event) => event.type === 'person.job_changed' && event.data.change === 'new_company',
    );
    expect(moves.length).toBeGreaterThan(10);
    for (const { data } of moves) {
      const { person_id: id } = data as { person_id: string };
      const [old, now] = [before.get(id)!, after.get(id)!];
      const company = companies.get(now.current_company!.id!)!;
      expect(now.current_company).toMatchObject({
        id: company.id,
        name: company.name,
        size: company.company_size,
      });
      expect(now.emails!.work!.map((e) => e.value!.split('@')[1])).toEqual([company.fqdn]);
      expect(now.emails!.personal).toEqual(old.emails!.personal);
      expect(now).toMatchObject({
        month_joined: 7,
        year_joined: 2025,
        time_in_current_role: "Jul '25 - Present",
      });
      if (old.position && old.month_joined) {
        expect(now.secondary_position![0]).toMatchObject({
          company_id: old.current_company!.id,
          cleaned_position: old.position,
          time_in_current_role: expect.stringMatching(/ - Jul '25$/),
        });
      }
    }
  });

  it("renames companies and their people's current company with them, and leaves no one at a closed one", () => {
    const start = records<Company>('start', 'companies');
    const year = records<Company>('year', 'companies');
    const renamed = [...year.values()].filter((c) => start.has(c.id) && start.get(c.id)!.name !== c.name);
    expect(renamed.length).toBeGreaterThan(0);
    const people = [...records<Person>('year', 'people').values()];
    for (const person of people) {
      const company = person.current_company?.id;
      if (!company) continue;
      expect(year.has(company)).toBe(true);
      expect(person.current_company!.name).toBe(year.get(company)!.name);
      expect(person.current_company!.size).toBe(year.get(company)!.company_size);
    }
  });

  it('keeps ids and work addresses unique', () => {
    for (const set of ['year', 'later']) {
      const lines = readFileSync(path.join(dir(set), 'people.ndjson'), 'utf8')
        .split('\n')
        .filter(Boolean);
      const people = [...records<Person>(set, 'people').values()];
      expect(people).toHaveLength(lines.length);
      const own = people.flatMap((p) => p.emails?.work ?? []).map((e) => e.value!);
      const inboxes = new Set(
        [...records<Company>(set, 'companies').values()].flatMap((c) => c.emails ?? []),
      );
      const personal = own.filter((address) => !inboxes.has(address));
      expect(new Set(personal).size).toBe(personal.length);
    }
  });

  it('is deterministic for a seed, and differs by seed', async () => {
    await evolveDataset({ in: dir('start'), out: dir('again'), seed: 1, months: 1 });
    await evolveDataset({ in: dir('start'), out: dir('other'), seed: 2, months: 1 });
    const same = (a: string, b: string, file: string) =>
      readFileSync(path.join(dir(a), file)).equals(readFileSync(path.join(dir(b), file)));
    for (const file of ['companies.ndjson', 'people.ndjson', 'expected-changes.ndjson']) {
      expect(same('again', 'month', file), file).toBe(true);
    }
    expect(same('other', 'month', 'people.ndjson')).toBe(false);
  });

  it('reads and writes gzip sets, with the same records', async () => {
    await writeDataset({ companies: 600, people: 6000, seed: 11, out: dir('start-gz'), gzip: true });
    const summary = await evolveDataset({ in: dir('start-gz'), out: dir('month-gz'), seed: 1, months: 1 });
    expect(summary.files.map((f) => path.basename(f))).toEqual([
      'companies.ndjson.gz',
      'people.ndjson.gz',
      'expected-changes.ndjson',
    ]);
    expect(linesById(dir('month-gz'), 'people')).toEqual(linesById(dir('month'), 'people'));
    const expected = (set: string) => readFileSync(path.join(dir(set), 'expected-changes.ndjson'), 'utf8');
    expect(expected('month-gz')).toBe(expected('month'));
  });

  it('continues from the month an evolve reached, with ids never used before', () => {
    const manifest = JSON.parse(readFileSync(path.join(dir('year'), 'evolve.json'), 'utf8'));
    expect(manifest.as_of).toBe('2026-06');
    const later = records<Person>('later', 'people');
    const joined = [...later.values()].filter((p) => p.year_joined === 2026 && (p.month_joined ?? 0) > 6);
    expect(joined.length).toBeGreaterThan(0);
    const everEarlier = new Set([
      ...linesById(dir('start'), 'people').keys(),
      ...linesById(dir('year'), 'people').keys(),
    ]);
    const created = expectedChanges(dir('later')).filter((e) => e.type === 'person.created');
    for (const { data } of created)
      expect(everEarlier.has((data as { person_id: string }).person_id)).toBe(false);
  });

  it('refuses to write into the set it reads, and a number of months out of range', async () => {
    await expect(evolveDataset({ in: dir('start'), out: dir('start'), seed: 1, months: 1 })).rejects.toThrow(
      /must not be the input directory/,
    );
    await expect(evolveDataset({ in: dir('start'), out: dir('x'), seed: 1, months: 0 })).rejects.toThrow(
      /months/,
    );
    await expect(evolveDataset({ in: dir('missing'), out: dir('x'), seed: 1, months: 1 })).rejects.toThrow(
      /neither companies.ndjson nor companies.ndjson.gz/,
    );
  });
});
