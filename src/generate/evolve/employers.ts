// Employers people can join: the facts a person record repeats about their company, read from a company record.
import type { Company } from '../../schemas/company.js';
import type { Person } from '../../schemas/person.js';
import { EMAIL_FORMATS, type EmailFormat } from '../handles.js';
import { INDUSTRIES, type Industry } from '../industries.js';
import { Rng } from '../random.js';
import { keyOf } from './streams.js';

export type CurrentCompany = NonNullable<Person['current_company']>;

export interface Employer {
  id: string;
  /** What a person working there carries as current_company (copied for each person). */
  summary: CurrentCompany;
  /** The domain of new work addresses. */
  fqdn: string;
  industry: Industry;
  emailFormat: EmailFormat;
  /** The first month (1 = the first evolved month) from which people can join: 0 for companies already there. */
  from: number;
}

const MOBILE = /^(\+61 4|04|\+64 2|02[127] )/;
const BUSINESS_LINE = /^(1300|1800|0800) /;

/** A company record lists main, business-wide and mobile numbers in one list; the formats tell them apart. */
function splitPhones(phones: readonly string[]) {
  const main_phones: string[] = [];
  const other_phones: string[] = [];
  const mobile_phones: string[] = [];
  for (const phone of phones) {
    if (MOBILE.test(phone)) mobile_phones.push(phone);
    else if (BUSINESS_LINE.test(phone)) other_phones.push(phone);
    else main_phones.push(phone);
  }
  return { main_phones, other_phones, mobile_phones };
}

const BY_ANZSIC = new Map(INDUSTRIES.map((industry) => [industry.anzsic, industry]));
const BY_LABELS = new Map(INDUSTRIES.map((industry) => [industry.labels.join('|'), industry]));
/** For a company of no generated industry: people spread over the common departments. */
const ANY_INDUSTRY: Industry = {
  labels: [],
  anzsic: '',
  sic: '',
  naics: '',
  nameWords: [],
  keywords: [],
  core: ['General Management', 'Sales', 'Operations', 'Customer Service'],
};

function industryOf(company: Company): Industry {
  return (
    BY_ANZSIC.get(company.industry_codes?.anzsic ?? '') ??
    BY_LABELS.get((company.industries ?? []).join('|')) ??
    ANY_INDUSTRY
  );
}

/** The generator draws a company's e-mail format from facts a record does not show; its id stands in. */
const emailFormatOf = (id: string): EmailFormat => new Rng(keyOf(id)).weighted(EMAIL_FORMATS);

/** The employer a company record describes, or undefined when it lacks an id or a domain to mail at. */
export function employerOf(company: Company, from = 0): Employer | undefined {
  const { id } = company;
  const { fqdn } = company;
  if (!id || !fqdn) return undefined;
  return {
    id,
    summary: {
      id,
      name: company.name ?? null,
      size: company.company_size ?? null,
      website: company.website ?? null,
      industry: company.industries ?? null,
      linkedin: company.linkedin ?? null,
      ...splitPhones(company.phones ?? []),
    },
    fqdn,
    industry: industryOf(company),
    emailFormat: emailFormatOf(id),
    from,
  };
}

/** A fresh copy of an employer's summary, so no two person records share nested objects. */
export const summaryOf = (employer: Employer): CurrentCompany => structuredClone(employer.summary);

/** Employers a person may join: enough for variety, few enough to hold whatever the set's size. */
const POOL_SIZE = 50_000;

/**
 * A uniform sample of the companies offered, at most POOL_SIZE (reservoir sampling): memory stays bounded
 * and a company is read in full only when it is taken into the sample.
 */
export class EmployerPool {
  private readonly items: Employer[] = [];
  private offered = 0;

  constructor(
    private readonly rng: Rng,
    private readonly capacity = POOL_SIZE,
  ) {}

  get size(): number {
    return this.items.length;
  }

  offer(make: () => Employer | undefined): void {
    const at = this.offered < this.capacity ? this.offered : this.rng.int(this.offered + 1);
    this.offered++;
    if (at >= this.capacity) return;
    const employer = make();
    if (!employer) return;
    if (at < this.items.length) this.items[at] = employer;
    else this.items.push(employer);
  }

  /** An employer open in `month` other than `except`, or undefined when none is found. */
  pick(rng: Rng, month: number, except: string | null): Employer | undefined {
    if (this.items.length === 0) return undefined;
    for (let tries = 0; tries < 16; tries++) {
      const employer = rng.pick(this.items);
      if (employer.from <= month && employer.id !== except) return employer;
    }
    return undefined;
  }
}
