// Australian states and New Zealand regions as the generator fills them in: cities, phone area codes,
// universities. Their names and codes are the vocabulary's (src/vocabulary/places.ts).
import { COUNTRY_NAMES, type Country, type CountryName, REGIONS } from '../vocabulary/places.js';

/** What the generator knows of a region beyond its name. */
interface RegionDetails {
  weight: number;
  cities: readonly string[];
  /** Trunk area code without the leading 0, e.g. `2` for (02). */
  area: string;
  /** First digits that local landline numbers in the region start with. */
  localPrefixes: readonly string[];
  universities: readonly string[];
  /** Vocational colleges (TAFEs, polytechnics). */
  colleges: readonly string[];
}

export interface Region extends RegionDetails {
  /** The abbreviation the company record's `states` holds. */
  code: string;
  name: string;
  country: CountryName;
}

const NZ_UNIVERSITIES = ['Massey University', 'Lincoln University'];

const DETAILS: Readonly<Record<string, RegionDetails>> = {
  NSW: {
    weight: 32,
    cities: ['Sydney', 'Parramatta', 'Newcastle', 'Wollongong', 'Chatswood', 'North Sydney', 'Penrith'],
    area: '2',
    localPrefixes: ['9', '8', '4'],
    universities: [
      'University of Sydney',
      'UNSW Sydney',
      'University of Technology Sydney',
      'Macquarie University',
      'Western Sydney University',
      'University of Newcastle',
      'University of Wollongong',
    ],
    colleges: ['TAFE NSW'],
  },
  VIC: {
    weight: 26,
    cities: ['Melbourne', 'Geelong', 'Ballarat', 'Bendigo', 'Richmond', 'Box Hill', 'Dandenong'],
    area: '3',
    localPrefixes: ['9', '8'],
    universities: [
      'University of Melbourne',
      'Monash University',
      'RMIT University',
      'Deakin University',
      'La Trobe University',
      'Swinburne University of Technology',
    ],
    colleges: ['Box Hill Institute', 'Holmesglen Institute'],
  },
  QLD: {
    weight: 20,
    cities: ['Brisbane', 'Gold Coast', 'Sunshine Coast', 'Townsville', 'Cairns', 'Toowoomba'],
    area: '7',
    localPrefixes: ['3', '5', '4'],
    universities: [
      'University of Queensland',
      'Queensland University of Technology',
      'Griffith University',
      'James Cook University',
      'Bond University',
    ],
    colleges: ['TAFE Queensland'],
  },
  WA: {
    weight: 11,
    cities: ['Perth', 'Fremantle', 'Joondalup', 'Bunbury', 'Mandurah'],
    area: '8',
    localPrefixes: ['9', '6'],
    universities: ['University of Western Australia', 'Curtin University', 'Edith Cowan University'],
    colleges: ['North Metropolitan TAFE', 'South Metropolitan TAFE'],
  },
  SA: {
    weight: 7,
    cities: ['Adelaide', 'Mount Gambier', 'Port Adelaide', 'Glenelg'],
    area: '8',
    localPrefixes: ['8', '7'],
    universities: ['University of Adelaide', 'Flinders University', 'University of South Australia'],
    colleges: ['TAFE SA'],
  },
  TAS: {
    weight: 2,
    cities: ['Hobart', 'Launceston', 'Devonport'],
    area: '3',
    localPrefixes: ['6'],
    universities: ['University of Tasmania'],
    colleges: ['TasTAFE'],
  },
  ACT: {
    weight: 2,
    cities: ['Canberra', 'Belconnen', 'Tuggeranong'],
    area: '2',
    localPrefixes: ['6'],
    universities: ['Australian National University', 'University of Canberra'],
    colleges: ['Canberra Institute of Technology'],
  },
  NT: {
    weight: 1,
    cities: ['Darwin', 'Alice Springs', 'Palmerston'],
    area: '8',
    localPrefixes: ['8'],
    universities: ['Charles Darwin University'],
    colleges: ['Charles Darwin University'],
  },
  AUK: {
    weight: 34,
    cities: ['Auckland', 'Manukau', 'North Shore', 'Takapuna'],
    area: '9',
    localPrefixes: ['3', '5', '8'],
    universities: ['University of Auckland', 'Auckland University of Technology', ...NZ_UNIVERSITIES],
    colleges: ['Unitec Institute of Technology', 'Manukau Institute of Technology'],
  },
  WGN: {
    weight: 11,
    cities: ['Wellington', 'Lower Hutt', 'Porirua'],
    area: '4',
    localPrefixes: ['4', '9'],
    universities: ['Victoria University of Wellington', ...NZ_UNIVERSITIES],
    colleges: ['WelTec'],
  },
  CAN: {
    weight: 13,
    cities: ['Christchurch', 'Timaru', 'Ashburton'],
    area: '3',
    localPrefixes: ['3', '9'],
    universities: ['University of Canterbury', 'Lincoln University'],
    colleges: ['Ara Institute of Canterbury'],
  },
  WKO: {
    weight: 10,
    cities: ['Hamilton', 'Taupō', 'Cambridge'],
    area: '7',
    localPrefixes: ['8', '9'],
    universities: ['University of Waikato', ...NZ_UNIVERSITIES],
    colleges: ['Wintec'],
  },
  OTA: {
    weight: 5,
    cities: ['Dunedin', 'Queenstown', 'Wānaka'],
    area: '3',
    localPrefixes: ['4'],
    universities: ['University of Otago'],
    colleges: ['Otago Polytechnic'],
  },
  BOP: {
    weight: 7,
    cities: ['Tauranga', 'Rotorua', 'Whakatāne'],
    area: '7',
    localPrefixes: ['5', '3'],
    universities: ['University of Waikato', ...NZ_UNIVERSITIES],
    colleges: ['Toi Ohomai Institute of Technology'],
  },
};

/** The regions of a country, in the vocabulary's order, with their details. */
const regionsIn = (country: Country): readonly Region[] =>
  REGIONS.filter((region) => region.country === country).map((region) => ({
    code: region.code,
    name: region.name,
    country: COUNTRY_NAMES[country],
    ...DETAILS[region.code]!,
  }));

export const AU_REGIONS = regionsIn('AU');
export const NZ_REGIONS = regionsIn('NZ');

/** Share of companies (and so of people's home regions) in New Zealand. */
export const NZ_SHARE = 0.12;

/** The regions of the country `region` is in. */
export const regionsOf = (region: Region): readonly Region[] =>
  region.country === 'Australia' ? AU_REGIONS : NZ_REGIONS;
