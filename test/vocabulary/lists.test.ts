// The contract's fixed lists as the vocabulary holds them, and the generator drawing on the same ones.
import { describe, expect, it } from 'vitest';
import { AU_REGIONS, NZ_REGIONS } from '../../src/generate/places.js';
import { COUNTRY_NAMES, countryOf, REGIONS, regionOf } from '../../src/vocabulary/places.js';
import { SENIORITIES, SENIORITY_ORDER, seniorityId } from '../../src/vocabulary/seniorities.js';

describe('seniorities', () => {
  it('rank from Other to Board Member as contract §8 orders them for promotions, No Data Available unranked', () => {
    expect(SENIORITY_ORDER).toEqual([
      'Other',
      'Manager',
      'VP/Director / Head of',
      'C-Suite / Partner',
      'Owner / Founder',
      'Board Member / Company Director',
    ]);
    expect(SENIORITIES.filter((label) => !SENIORITY_ORDER.includes(label))).toEqual(['No Data Available']);
  });

  it('are numbered from 1 in the order of contract §1', () => {
    expect(SENIORITIES.map((label) => seniorityId(label))).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('places', () => {
  it('name each region once, by a code and a name that are read back as it', () => {
    expect(new Set(REGIONS.map((r) => r.code)).size).toBe(REGIONS.length);
    for (const region of REGIONS) {
      expect(regionOf(region.name)).toBe(region.code);
      expect(regionOf(region.code.toLowerCase())).toBe(region.code);
    }
    expect(countryOf(COUNTRY_NAMES.NZ)).toBe('NZ');
  });

  it("are the generator's regions, in the same order, with its details", () => {
    const generated = [...AU_REGIONS, ...NZ_REGIONS].map(({ code, name, country }) => ({
      code,
      name,
      country,
    }));
    expect(generated).toEqual(
      REGIONS.map((r) => ({ code: r.code, name: r.name, country: COUNTRY_NAMES[r.country] })),
    );
    expect(AU_REGIONS.every((region) => region.cities.length > 0)).toBe(true);
  });
});
