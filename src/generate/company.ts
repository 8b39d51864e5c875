// A company's essential facts, a cheap pure function of (seed, index, id start), so people can cite any company.
import { asciiSlug, companyId, domainLabel, EMAIL_FORMATS, type EmailFormat } from './handles.js';
import { BRAND_TAILS, BRAND_WORDS, INDUSTRIES, type Industry, NAME_PREFIXES } from './industries.js';
import { blockStart } from './numbering.js';
import { businessLine, landline, mobile, PHONE_STYLES } from './phones.js';
import { AU_REGIONS, NZ_REGIONS, NZ_SHARE, type Region } from './places.js';
import { type Pools, poolsFor } from './pools.js';
import { type Rng, recordRng, STREAM, weights } from './random.js';
import { COMPANY_SIZES, COMPANY_TYPES, type CompanySize, GENERIC_INBOXES } from './values.js';

export interface CompanyFacts {
  index: number;
  /** The record number its identifiers are minted from: the data set's id start plus the index. */
  number: number;
  id: string;
  name: string;
  fqdn: string;
  website: string;
  /** LinkedIn slug. */
  linkedin: string;
  /** The name's letters without its legal suffix, for social handles. */
  handle: string;
  size: CompanySize;
  sizeRank: number;
  type: string;
  industry: Industry;
  region: Region;
  city: string;
  mainPhones: string[];
  otherPhones: string[];
  mobilePhones: string[];
  /** How the company spells its people's work addresses. */
  emailFormat: EmailFormat;
  /** A shared address such as `info@<fqdn>`. */
  inbox: string;
}

const regionTable = (regions: readonly Region[]) => weights(regions.map((r) => [r, r.weight] as const));
const AU_TABLE = regionTable(AU_REGIONS);
const NZ_TABLE = regionTable(NZ_REGIONS);
const SIZE_TABLE = weights(COMPANY_SIZES.map((size, rank) => [rank, size.weight] as const));

/** Picks a home region, AU or (less often) NZ. */
function pickRegion(rng: Rng): Region {
  return rng.weighted(rng.chance(NZ_SHARE) ? NZ_TABLE : AU_TABLE);
}

const TLDS = {
  Australia: weights([
    ['com.au', 70],
    ['au', 8],
    ['com', 15],
    ['net.au', 7],
  ]),
  'New Zealand': weights([
    ['co.nz', 70],
    ['nz', 10],
    ['com', 20],
  ]),
};

const NAME_STYLES = weights([
  ['surname', 35],
  ['partners', 12],
  ['place', 20],
  ['city', 13],
  ['brand', 20],
] as const);

/** A trading name as words, e.g. ["Harris", "Plumbing"] or ["Walsh", "&", "Nguyen", "Lawyers"]. */
function tradingName(rng: Rng, pools: Pools, industry: Industry, region: Region, city: string): string[] {
  const word = rng.pick(industry.nameWords);
  switch (rng.weighted(NAME_STYLES)) {
    case 'surname':
      return [rng.pick(pools.last), word];
    case 'partners':
      return [rng.pick(pools.last), '&', rng.pick(pools.last), word];
    case 'place':
      return [rng.pick(NAME_PREFIXES[region.country]), word];
    case 'city':
      return [city, word];
    case 'brand':
      return [rng.pick(BRAND_WORDS), rng.pick(BRAND_TAILS)];
  }
}

/** Listed companies are large: a small one drawn as public is taken as private. */
function companyType(rng: Rng, sizeRank: number): string {
  if (sizeRank >= 4 && rng.chance(0.3)) return 'Public company';
  const type = rng.weighted(COMPANY_TYPES);
  return type === 'Public company' && sizeRank < 3 ? 'Private company' : type;
}

function legalSuffix(rng: Rng, type: string, region: Region): string {
  const nz = region.country === 'New Zealand';
  if (type === 'Public company') return nz ? ' Limited' : rng.pick([' Limited', ' Ltd']);
  if (type === 'Private company' && rng.chance(0.35)) return nz ? ' Limited' : ' Pty Ltd';
  return '';
}

function companyPhones(rng: Rng, region: Region, sizeRank: number) {
  const style = rng.weighted(PHONE_STYLES);
  const mainPhones = [landline(rng, region, style)];
  if (rng.chance(0.25)) mainPhones.push(landline(rng, region, style));
  const otherPhones = rng.chance(0.2 + sizeRank * 0.1) ? [businessLine(rng, region)] : [];
  const mobilePhones = sizeRank <= 1 && rng.chance(0.5) ? [mobile(rng, region, style)] : [];
  return { mainPhones, otherPhones, mobilePhones };
}

/**
 * The essential facts of company `index` under `seed`, numbered from `idStart`, the same whenever asked.
 * @example companyFacts(0, 42).fqdn // e.g. 'harrisplumbing42.com.au'
 */
export function companyFacts(seed: number, index: number, idStart = blockStart(seed)): CompanyFacts {
  const number = idStart + index;
  const rng = recordRng(seed, STREAM.companyFacts, index);
  const pools = poolsFor(seed);
  const region = pickRegion(rng);
  const city = rng.pick(region.cities);
  const industry = rng.pick(INDUSTRIES);
  const sizeRank = rng.weighted(SIZE_TABLE);
  const type = companyType(rng, sizeRank);
  const words = tradingName(rng, pools, industry, region, city);
  const name = words.join(' ') + legalSuffix(rng, type, region);
  // Names repeat; the record number (digits after a letters-only label) keeps every domain and slug
  // unique, in any number of data sets whose numbers do not overlap.
  const fqdn = `${domainLabel(words)}${number}.${rng.weighted(TLDS[region.country])}`;
  return {
    index,
    number,
    id: companyId(number),
    name,
    fqdn,
    website: rng.chance(0.88) ? `https://www.${fqdn}` : `https://${fqdn}`,
    linkedin: `${asciiSlug(words)}-${number}`,
    handle: domainLabel(words, 30),
    size: COMPANY_SIZES[sizeRank]!,
    sizeRank,
    type,
    industry,
    region,
    city,
    ...companyPhones(rng, region, sizeRank),
    emailFormat: rng.weighted(EMAIL_FORMATS),
    inbox: `${rng.pick(GENERIC_INBOXES)}@${fqdn}`,
  };
}
