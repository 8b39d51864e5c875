// The full company record of spec §2.2, built from a company's facts plus its own random stream.
import { completeAbn, completeAcn } from '../identifiers/abn.js';
import type { Company } from '../schemas/company.js';
import { type CompanyFacts, companyFacts } from './company.js';
import { nextGen } from './next-gen.js';
import { blockStart, firstNumber, ID_BLOCK } from './numbering.js';
import { checkOptions } from './options.js';
import { regionsOf } from './places.js';
import { poolsFor } from './pools.js';
import { type Rng, recordRng, STREAM } from './random.js';
import { INCORPORATED_TYPES, REVENUES, VC_FIRMS } from './values.js';

const ACN_BODIES = 100_000_000;
/** Coprime to 10, so `position * factor mod 10^8` visits every 8-digit body once. */
const ACN_FACTOR = 61_803_399;
const GOLDEN_FRACTION = 0.6180339887498949;

/**
 * Company `index`'s place among the 10^8 ACN bodies, which every data set shares. A set takes
 * consecutive places from its id block's golden-ratio point (plus its id start's offset in the block).
 * Those points stay far apart (the golden ratio is the worst approximated by fractions): the sets of two
 * blocks d apart never meet while each holds fewer than 38 million ÷ d companies — a floor; seeds 0 and
 * 7 have 32 million places between them.
 */
function registryPosition(idStart: number, index: number): number {
  const block = Math.floor(idStart / ID_BLOCK);
  const spread = Math.floor(((block * GOLDEN_FRACTION) % 1) * ACN_BODIES);
  return (spread + (idStart % ID_BLOCK) + index) % ACN_BODIES;
}

/**
 * An ABN and, for registered companies, the ACN that its last nine digits repeat, as in the real
 * registers. The first eight digits of the body are a bijection of the registry position, so
 * neither repeats within a data set, nor between sets placed apart (see registryPosition).
 */
function registryNumbers(index: number, idStart: number, incorporated: boolean) {
  const position = registryPosition(idStart, index);
  const body = String((position * ACN_FACTOR) % ACN_BODIES).padStart(8, '0');
  const acn = completeAcn(body);
  // completeAbn leaves the odd body without check digits; another ninth digit then serves.
  const ninth = Number(acn[8]) + (incorporated ? 0 : 1 + (index % 9));
  for (let step = 0; step < 10; step++) {
    const abn = completeAbn(`${body}${(ninth + step) % 10}`);
    if (abn) return { abn, acn: incorporated && step === 0 ? acn : null };
  }
  throw new Error(`no ABN completes the body ${body}`);
}

function employeeCount(rng: Rng, facts: CompanyFacts): number | null {
  if (facts.region.country !== 'Australia' || rng.chance(0.12)) return null;
  const { min, max } = facts.size;
  // Skewed towards the bottom of the band, most of all in the open-ended 1000+ band.
  return min + Math.floor(rng.next() ** (facts.sizeRank === 5 ? 3 : 1.5) * (max - min + 1));
}

function locations(rng: Rng, facts: CompanyFacts): { locations: string[]; states: string[] } {
  const regions = regionsOf(facts.region);
  const extra = facts.sizeRank >= 3 ? rng.between(1, 4) : rng.chance(0.1) ? 1 : 0;
  const picked = [facts.region, ...rng.sample(regions, extra).filter((r) => r !== facts.region)];
  return {
    locations: picked.map((r, i) => `${i === 0 ? facts.city : rng.pick(r.cities)}, ${r.code}, ${r.country}`),
    states: picked.map((r) => r.code),
  };
}

function orNull<T>(rng: Rng, nullRate: number, value: () => T): T | null {
  return rng.chance(nullRate) ? null : value();
}

/** Company `index` of the data set for `seed`, numbered from `idStart`. */
export function buildCompany(seed: number, index: number, idStart = blockStart(seed)): Company {
  const facts = companyFacts(seed, index, idStart);
  const rng = recordRng(seed, STREAM.companyDetails, index);
  const pools = poolsFor(seed);
  const { industry, region } = facts;
  const founded = 2024 - Math.floor(rng.next() ** 2 * 110);
  const registry = registryNumbers(index, idStart, INCORPORATED_TYPES.has(facts.type));
  const place = locations(rng, facts);
  const revenueBand = Math.min(REVENUES.length - 1, Math.max(0, facts.sizeRank + rng.between(-1, 1)));
  const handle = (p: number) => orNull(rng, p, () => facts.handle);
  return {
    id: facts.id,
    name: facts.name,
    website: facts.website,
    fqdn: facts.fqdn,
    description: orNull(
      rng,
      0.12,
      () =>
        `${facts.name} is a ${facts.city}-based ${industry.labels[0]!.toLowerCase()} business. ` +
        `We ${rng.pick(pools.buzzPhrases)}.`,
    ),
    tagline: orNull(rng, 0.25, () => rng.pick(pools.catchPhrases)),
    linkedin: facts.linkedin,
    au_employee_count: employeeCount(rng, facts),
    year_founded: founded,
    hq_location: rng.chance(0.03) ? null : facts.city,
    hq_country: region.country,
    company_size: facts.size.label,
    company_type: facts.type,
    abn_operation_status: rng.chance(0.95) ? 'active' : 'cancelled',
    locations: place.locations,
    industries: [...industry.labels],
    revenue: REVENUES[revenueBand]!,
    phones: [...facts.mainPhones, ...facts.otherPhones, ...facts.mobilePhones],
    emails: facts.sizeRank >= 3 ? [facts.inbox, `careers@${facts.fqdn}`] : [facts.inbox],
    social_media: {
      twitter: handle(0.45),
      youtube: handle(0.7),
      facebook: handle(0.3),
      linkedin: facts.linkedin,
      instagram: handle(0.5),
    },
    industry_codes: {
      abn: registry.abn,
      acn: registry.acn,
      sic: industry.sic,
      duns: orNull(rng, 0.3, () => `${rng.between(1, 9)}${rng.digits(8)}`),
      naics: industry.naics,
      anzsic: industry.anzsic,
    },
    keywords: orNull(rng, 0.1, () => [
      ...rng.sample(industry.keywords, rng.between(2, 4)),
      ...rng.sample(pools.buzzNouns, rng.between(0, 2)),
    ]),
    org_registers: { vc: facts.sizeRank <= 2 && rng.chance(0.06) ? rng.pick(VC_FIRMS) : null },
    states: place.states,
    nextGen: nextGen(rng, facts, founded),
  };
}

/**
 * The data set's companies, one at a time; company `i` is the same whatever else is generated. Their
 * records are numbered from `idStart`, by default the seed's block (see numbering.ts).
 * @example [...generateCompanies({ companies: 3, seed: 1 })].map((c) => c.id)
 */
export function* generateCompanies(opts: {
  companies: number;
  seed: number;
  idStart?: number;
}): Generator<Company> {
  checkOptions(opts);
  const idStart = firstNumber(opts.seed, opts.idStart);
  for (let index = 0; index < opts.companies; index++) yield buildCompany(opts.seed, index, idStart);
}
