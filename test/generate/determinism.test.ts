import { describe, expect, it } from 'vitest';
import {
  buildPerson,
  companyFacts,
  generateCompanies,
  generatePeople,
  staffing,
} from '../../src/generate/index.js';

const ndjson = (records: Iterable<unknown>) => Array.from(records, (r) => `${JSON.stringify(r)}\n`).join('');

describe('generation is deterministic', () => {
  it('produces the same bytes for the same seed', () => {
    const opts = { companies: 60, people: 400, seed: 42 };
    expect(ndjson(generateCompanies(opts))).toBe(ndjson(generateCompanies(opts)));
    expect(ndjson(generatePeople(opts))).toBe(ndjson(generatePeople(opts)));
  });

  it('produces different records for different seeds', () => {
    const a = [...generatePeople({ companies: 20, people: 50, seed: 1 })];
    const b = [...generatePeople({ companies: 20, people: 50, seed: 2 })];
    const differing = a.filter((p, i) => p.name !== b[i]!.name || p.linkedin !== b[i]!.linkedin);
    expect(differing.length).toBeGreaterThan(40);
    const ca = [...generateCompanies({ companies: 20, seed: 1 })].map((c) => c.fqdn);
    const cb = [...generateCompanies({ companies: 20, seed: 2 })].map((c) => c.fqdn);
    expect(ca).not.toEqual(cb);
  });

  it('gives a company the same facts however it is reached', () => {
    const companies = [...generateCompanies({ companies: 30, seed: 5 })];
    for (const [i, company] of companies.entries()) {
      const facts = companyFacts(5, i);
      expect([facts.id, facts.name, facts.fqdn, facts.website, facts.linkedin]).toEqual([
        company.id,
        company.name,
        company.fqdn,
        company.website,
        company.linkedin,
      ]);
    }
  });

  it('builds any person directly by index, as the stream does', () => {
    const opts = { companies: 25, people: 300, seed: 9 };
    const streamed = [...generatePeople(opts)];
    const plan = staffing(opts.seed, opts.companies, opts.people);
    for (const index of [0, 1, 137, 299]) expect(buildPerson(plan, index)).toEqual(streamed[index]);
  });

  it('keeps the companies of a smaller set unchanged in a larger one', () => {
    const small = ndjson(generateCompanies({ companies: 10, seed: 3 }));
    const large = ndjson(generateCompanies({ companies: 50, seed: 3 }));
    expect(large.startsWith(small)).toBe(true);
  });

  it('refuses counts and seeds it cannot honour', () => {
    expect(() => generateCompanies({ companies: -1, seed: 1 }).next()).toThrow(RangeError);
    expect(() => generateCompanies({ companies: 1, seed: 0.5 }).next()).toThrow(RangeError);
    expect(() => generatePeople({ companies: 0, people: 5, seed: 1 }).next()).toThrow(/company/);
  });
});
