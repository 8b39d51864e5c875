// Countries and regions as records and filters name them: Australia and New Zealand, their states and regions.
import { AU_REGIONS, NZ_REGIONS } from '../generate/places.js';
import { searchWords } from './text.js';

/** The countries the people search knows: `selectedCountry` and a person's derived country. */
export const COUNTRIES = ['AU', 'NZ'] as const;
export type Country = (typeof COUNTRIES)[number];

const COUNTRY_NAMES: ReadonlyMap<string, Country> = new Map([
  ['australia', 'AU'],
  ['au', 'AU'],
  ['new zealand', 'NZ'],
  ['nz', 'NZ'],
]);

/**
 * The country a place name names: `Australia` or `AU` → AU, `New Zealand` or `NZ` → NZ (case, accents
 * and punctuation ignored); undefined for anything else.
 * @example countryOf(' new zealand ') // 'NZ'
 */
export function countryOf(name: unknown): Country | undefined {
  return typeof name === 'string' ? COUNTRY_NAMES.get(searchWords(name)) : undefined;
}

/**
 * A company's `hq_country` as filters compare it: AU or NZ when it names one, else its folded words, so
 * that any other country can be filtered on too (`United States` → `united states`); '' when none.
 */
export function hqCountryKey(name: unknown): string {
  if (typeof name !== 'string') return '';
  return countryOf(name) ?? searchWords(name);
}

const REGIONS: ReadonlyMap<string, string> = new Map(
  [...AU_REGIONS, ...NZ_REGIONS].flatMap((region) => [
    [searchWords(region.name), region.code],
    [searchWords(region.code), region.code],
  ]),
);

/**
 * The abbreviation of an Australian state or territory, or of a New Zealand region, named by its name or
 * abbreviation (`New South Wales`, `nsw` → NSW); undefined for other places.
 */
export function regionOf(name: unknown): string | undefined {
  return typeof name === 'string' ? REGIONS.get(searchWords(name)) : undefined;
}

/**
 * A state as filters and company records give it: the abbreviation of a known region, else its folded
 * words in upper case (so a region this list lacks can still be matched as the records write it).
 */
export function stateKey(name: string): string {
  return regionOf(name) ?? searchWords(name).toUpperCase();
}
