import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { companyId, personId, personSlug } from '../../src/generate/handles.js';
import { blockStart, generateCompanies, generatePeople, ID_BLOCK } from '../../src/generate/index.js';
import type { Company } from '../../src/schemas/company.js';
import type { Person } from '../../src/schemas/person.js';

interface DataSet {
  people: Person[];
  companies: Company[];
}

const dataSet = (seed: number, idStart?: number): DataSet => {
  const opts = { companies: 300, people: 1500, seed, idStart };
  return { people: [...generatePeople(opts)], companies: [...generateCompanies(opts)] };
};

/** Every value a lookup could match a record of the set by: ids and each identifier. */
function lookupValues({ people, companies }: DataSet): Set<string> {
  const values = [
    ...people.flatMap((p) => [
      p.id!,
      p.linkedin!,
      ...p.emails!.work!.map((e) => e!.value!),
      ...p.emails!.personal!.map((e) => e!.value!),
    ]),
    ...companies.flatMap((c) => [c.id!, c.fqdn!, c.linkedin!, c.industry_codes!.abn!, ...c.emails!]),
  ];
  return new Set(values);
}

const shared = (a: Set<string>, b: Set<string>) => [...a].filter((value) => b.has(value));

describe('record numbering', () => {
  it('gives each seed its own block: seed S numbers from (S mod 10,000) × 10^8', () => {
    expect([0, 1, 7, 2026, 9999, 10_007].map(blockStart)).toEqual([
      0,
      ID_BLOCK,
      7 * ID_BLOCK,
      2026 * ID_BLOCK,
      9999 * ID_BLOCK,
      7 * ID_BLOCK,
    ]);
  });

  it('mints no id, domain, LinkedIn slug, e-mail or ABN in two seeds’ sets alike', () => {
    const demo = lookupValues(dataSet(0));
    const seven = lookupValues(dataSet(7));
    expect(shared(demo, seven)).toEqual([]);
    expect(shared(seven, lookupValues(dataSet(2026)))).toEqual([]);
  });

  it('numbers a set from an id start instead: same seed, disjoint numbers, nothing shared', () => {
    const first = dataSet(7);
    const next = dataSet(7, blockStart(7) + 1500);
    expect(shared(lookupValues(first), lookupValues(next))).toEqual([]);
    // The same people otherwise: only what is minted from the number differs.
    expect(next.people.map((p) => p.name)).toEqual(first.people.map((p) => p.name));
  });

  it('mints ids from the number alone: a seed at an explicit start matches that block', () => {
    const [zero] = generatePeople({ companies: 1, people: 1, seed: 7, idStart: 0 });
    expect(zero!.id).toBe('fp000000067890');
    const [company] = generateCompanies({ companies: 1, seed: 3, idStart: blockStart(7) });
    const [own] = generateCompanies({ companies: 1, seed: 7 });
    expect(company!.id).toBe(own!.id);
  });

  it('refuses an id start that would run past the id space, and sets larger than a block', () => {
    expect(() => generatePeople({ companies: 1, people: 10, seed: 1, idStart: 1e12 - 5 }).next()).toThrow(
      /id start/,
    );
    expect(() => generateCompanies({ companies: 1, seed: 1, idStart: -1 }).next()).toThrow(/id start/);
    expect(() => generateCompanies({ companies: ID_BLOCK + 1, seed: 1 }).next()).toThrow(/companies/);
  });

  it('turns every record number below 10^12 into an id it can be read back from', () => {
    const M = 10n ** 12n;
    const inverse = (factor: bigint) => {
      let [a, b, x, y] = [factor, M, 1n, 0n];
      while (b) [a, b, x, y] = [b, a % b, y, x - (a / b) * y];
      return ((x % M) + M) % M;
    };
    const readBack = (id: string, factor: bigint, offset: bigint) =>
      Number((((((BigInt(id.replace(/^fp?/, '')) - offset) % M) + M) % M) * inverse(factor)) % M);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 - 1 }), (n) => {
        expect(readBack(companyId(n), 48_271n, 117_274n)).toBe(n);
        expect(readBack(personId(n), 69_317n, 67_890n)).toBe(n);
      }),
    );
  });

  it('gives consecutive numbers distinct eight-character slug codes, up to the end of the id space', () => {
    for (const from of [0, 7 * ID_BLOCK, 1e12 - 5000]) {
      const codes = Array.from({ length: 5000 }, (_, i) => personSlug('Jo', 'Lee', from + i).slice(7));
      for (const code of codes) expect(code).toMatch(/^[0-9a-z]{8}$/);
      expect(new Set(codes).size).toBe(codes.length);
    }
  });
});
