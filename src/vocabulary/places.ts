// Countries and regions as records and filters name them: Australia and New Zealand, their states and regions.
import { searchWords } from './words.js';

/** The countries the people search knows: `selectedCountry` and a person's derived country. */
export const COUNTRIES = ['AU', 'NZ'] as const;
export type Country = (typeof COUNTRIES)[number];

/** Each country's name, as records write it (`hq_country`, the last entry of `location`). */
export const COUNTRY_NAMES = { AU: 'Australia', NZ: 'New Zealand' } as const satisfies Record<
  Country,
  string
>;
export type CountryName = (typeof COUNTRY_NAMES)[Country];

/** An Australian state or territory, or a New Zealand region. */
export interface Region {
  /** The abbreviation records and filters use (a company's `states`, the `state` filter). */
  code: string;
  name: string;
  country: Country;
}

/** Australia's states and territories, then New Zealand's regions. */
export const REGIONS: readonly Region[] = [
  { code: 'NSW', name: 'New South Wales', country: 'AU' },
  { code: 'VIC', name: 'Victoria', country: 'AU' },
  { code: 'QLD', name: 'Queensland', country: 'AU' },
  { code: 'WA', name: 'Western Australia', country: 'AU' },
  { code: 'SA', name: 'South Australia', country: 'AU' },
  { code: 'TAS', name: 'Tasmania', country: 'AU' },
  { code: 'ACT', name: 'Australian Capital Territory', country: 'AU' },
  { code: 'NT', name: 'Northern Territory', country: 'AU' },
  { code: 'AUK', name: 'Auckland', country: 'NZ' },
  { code: 'WGN', name: 'Wellington', country: 'NZ' },
  { code: 'CAN', name: 'Canterbury', country: 'NZ' },
  { code: 'WKO', name: 'Waikato', country: 'NZ' },
  { code: 'OTA', name: 'Otago', country: 'NZ' },
  { code: 'BOP', name: 'Bay of Plenty', country: 'NZ' },
];

const COUNTRIES_BY_NAME: ReadonlyMap<string, Country> = new Map(
  COUNTRIES.flatMap(
    (code): Array<[string, Country]> => [
      [searchWords(COUNTRY_NAMES[code]), code],
      [searchWords(code), code],
    ],
  ),
);

/**
 * The country a place name names: `Australia` or `AU` → AU, `New Zealand` or `NZ` → NZ (case, accents
 * and punctuation ignored); undefined for anything else.
 * @example countryOf(' new zealand ') // 'NZ'
 */
export function countryOf(name: unknown): Country | undefined {
  return typeof name === 'string' ? COUNTRIES_BY_NAME.get(searchWords(name)) : undefined;
}

/**
 * A company's `hq_country` as filters compare it: AU or NZ when it names one, else its folded words, so
 * that any other country can be filtered on too (`United States` → `united states`); '' when none.
 */
export function hqCountryKey(name: unknown): string {
  if (typeof name !== 'string') return '';
  return countryOf(name) ?? searchWords(name);
}

const REGION_CODES: ReadonlyMap<string, string> = new Map(
  REGIONS.flatMap((region) => [
    [searchWords(region.name), region.code],
    [searchWords(region.code), region.code],
  ]),
);

/**
 * The abbreviation of an Australian state or territory, or of a New Zealand region, named by its name or
 * abbreviation (`New South Wales`, `nsw` → NSW); undefined for other places.
 */
export function regionOf(name: unknown): string | undefined {
  return typeof name === 'string' ? REGION_CODES.get(searchWords(name)) : undefined;
}

/**
 * A state as filters and company records give it: the abbreviation of a known region, else its folded
 * words in upper case (so a region this list lacks can still be matched as the records write it).
 */
export function stateKey(name: string): string {
  return regionOf(name) ?? searchWords(name).toUpperCase();
}
