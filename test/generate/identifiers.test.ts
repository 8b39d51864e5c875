import { beforeAll, describe, expect, it } from 'vitest';
import { generateCompanies, generatePeople } from '../../src/generate/index.js';
import type { Company } from '../../src/schemas/company.js';
import type { Person } from '../../src/schemas/person.js';

const opts = { companies: 1000, people: 5000, seed: 77 };
let people: Person[];
let companies: Company[];

beforeAll(() => {
  people = [...generatePeople(opts)];
  companies = [...generateCompanies(opts)];
});

/** Checks no value repeats, naming the repeats when some do. */
const expectUnique = (values: string[]) => {
  const seen = new Set<string>();
  expect(values.filter((v) => seen.has(v) || !seen.add(v))).toEqual([]);
};

describe('generated identifiers', () => {
  it('never repeat a person id, LinkedIn slug or personal e-mail in 5,000 people', () => {
    expectUnique(people.map((p) => p.id));
    expectUnique(people.map((p) => p.linkedin!.split('/in/')[1]!));
    expectUnique(people.flatMap((p) => p.emails!.personal!.map((e) => e!.value!)));
  });

  it('give every person a work e-mail of their own', () => {
    expectUnique(people.map((p) => p.emails!.work![0]!.value!));
  });

  it('let about 0.5% of people share a company inbox, each with a colleague', () => {
    const shared = people.flatMap((p) => p.emails!.work!.slice(1).map((e) => e!.value!));
    expect(shared.length).toBeGreaterThanOrEqual(10);
    expect(shared.length).toBeLessThanOrEqual(50);
    expect(new Set(shared).size).toBeLessThan(shared.length);
    const owners = new Set(companies.flatMap((c) => c.emails!));
    for (const inbox of shared) expect(owners.has(inbox), inbox).toBe(true);
  });

  it('never repeat a company id, fqdn, LinkedIn slug or ABN', () => {
    expectUnique(companies.map((c) => c.id));
    expectUnique(companies.map((c) => c.fqdn!));
    expectUnique(companies.map((c) => c.linkedin!));
    expectUnique(companies.map((c) => c.industry_codes!.abn!));
  });

  it('write person LinkedIn URLs in full, with some lower-case NFC non-ASCII slugs', () => {
    const slugs = people.map((p) => {
      expect(p.linkedin).toMatch(/^https:\/\/www\.linkedin\.com\/in\/[^/?#\s]+$/);
      return p.linkedin!.split('/in/')[1]!;
    });
    for (const slug of slugs) expect(slug).toBe(slug.normalize('NFC').toLowerCase());
    expect(slugs.filter((s) => /[^\p{ASCII}]/u.test(s)).length).toBeGreaterThan(20);
  });

  it('keep e-mail addresses ASCII and lower-case', () => {
    const addresses = people.flatMap((p) =>
      [...p.emails!.work!, ...p.emails!.personal!].map((e) => e!.value!),
    );
    for (const address of addresses) expect(address).toMatch(/^[a-z0-9._]+@[a-z0-9.-]+$/);
  });
});
