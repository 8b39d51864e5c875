// The person record of spec §2.1: one employee of a generated company, random-access by index.
import type { Person } from '../schemas/person.js';
import type { Seniority } from '../vocabulary/seniorities.js';
import { education, type Joined, pickDepartment, pickJoined, positionFor, timeInRole } from './career.js';
import { type CompanyFacts, companyFacts } from './company.js';
import { personId, personSlug } from './handles.js';
import { firstNumber } from './numbering.js';
import { checkOptions } from './options.js';
import { emails, socialMedia } from './person-contact.js';
import { mobile, PHONE_STYLES } from './phones.js';
import { regionsOf } from './places.js';
import { poolsFor } from './pools.js';
import { type Rng, recordRng, STREAM, weights } from './random.js';
import { DEPARTMENT_PROFILES } from './roles.js';
import { type PersonName, personName, placementOf, type Staffing, staffing } from './staffing.js';
import { SENIORITY_WEIGHTS } from './values.js';

type SecondaryPosition = NonNullable<Person['secondary_position']>[number];

const SECONDARY_COUNT = weights([
  [0, 60],
  [1, 28],
  [2, 12],
]);

const SECONDARY_SENIORITY = weights<Seniority>([
  ['Board Member / Company Director', 25],
  ['Owner / Founder', 20],
  ['C-Suite / Partner', 10],
  ['Other', 45],
]);

function currentCompany(facts: CompanyFacts): Person['current_company'] {
  return {
    id: facts.id,
    name: facts.name,
    size: facts.size.label,
    website: facts.website,
    industry: [...facts.industry.labels],
    linkedin: facts.linkedin,
    main_phones: [...facts.mainPhones],
    other_phones: [...facts.otherPhones],
    mobile_phones: [...facts.mobilePhones],
  };
}

/** Up to two concurrent roles at other companies, drawn with a skew towards low company indexes. */
function secondaryPositions(rng: Rng, plan: Staffing, employer: number): SecondaryPosition[] | null {
  if (rng.chance(0.08)) return null;
  const wanted = plan.companies < 2 ? 0 : rng.weighted(SECONDARY_COUNT);
  const chosen = new Set([employer]);
  const out: SecondaryPosition[] = [];
  for (let tries = 0; out.length < wanted && tries < 8; tries++) {
    const index = Math.floor(rng.next() ** 1.6 * plan.companies);
    if (chosen.has(index)) continue;
    chosen.add(index);
    const facts = companyFacts(plan.seed, index, plan.idStart);
    const seniority = rng.weighted(SECONDARY_SENIORITY);
    const department = pickDepartment(rng, facts.industry);
    const joined = pickJoined(rng, 12);
    out.push({
      company_id: facts.id,
      company_name: facts.name,
      company_size: facts.size.label,
      company_website: facts.website,
      company_linkedin: facts.linkedin,
      company_industry: facts.industry.labels[0]!,
      cleaned_position: positionFor(rng, seniority, department),
      month_joined: joined.month,
      year_joined: String(joined.year),
      time_in_current_role: timeInRole(joined),
      seniority,
      department,
    });
  }
  return out;
}

function summary(rng: Rng, name: PersonName, position: string | null, facts: CompanyFacts, skills: string[]) {
  const years = rng.between(2, 25);
  const focus = skills.length > 1 ? `${skills[0]} and ${skills[1]}` : facts.industry.keywords[0]!;
  return rng.pick([
    `${position ?? 'Professional'} at ${facts.name} with ${years} years of experience in ${focus}.`,
    `${name.first} is a ${facts.city}-based ${(position ?? 'professional').toLowerCase()} focused on ${focus}.`,
    `Experienced in ${focus}. Currently with ${facts.name}.`,
  ]);
}

/** Person `index` of the data set; `plan` says how people spread over companies. */
export function buildPerson(plan: Staffing, index: number): Person {
  const at = placementOf(plan, index);
  const facts = companyFacts(plan.seed, at.company, plan.idStart);
  const number = plan.idStart + index;
  const name = personName(plan.seed, index);
  const rng = recordRng(plan.seed, STREAM.person, index);
  const pools = poolsFor(plan.seed);
  const seniority = rng.weighted(SENIORITY_WEIGHTS);
  const department =
    seniority === 'No Data Available' ? 'No Data Available' : pickDepartment(rng, facts.industry);
  const position = rng.chance(0.03) ? null : positionFor(rng, seniority, department);
  const joined: Joined | null = rng.chance(0.03) ? null : pickJoined(rng);
  const home = rng.chance(0.85) ? facts.region : rng.pick(regionsOf(facts.region));
  const profile = DEPARTMENT_PROFILES[department];
  const skills = rng.chance(0.12) ? null : rng.sample(profile.skills, rng.between(2, 6));
  const style = rng.weighted(PHONE_STYLES);
  return {
    id: personId(number),
    name: `${name.first} ${name.last}`,
    first_name: name.first,
    last_name: name.last,
    middle_name: name.middle,
    headline: position ? `${position} at ${facts.name}` : facts.name,
    description: rng.chance(0.45) ? null : summary(rng, name, position, facts, skills ?? []),
    position,
    current_company: currentCompany(facts),
    time_in_current_role: joined ? timeInRole(joined) : null,
    month_joined: joined ? joined.month : null,
    year_joined: joined ? joined.year : null,
    emails: emails(rng, plan, at, facts, name, number, home),
    phones: [
      { value: mobile(rng, home, style), is_dnd: rng.chance(0.22) },
      ...(rng.chance(0.3) ? [{ value: facts.mainPhones[0]!, is_dnd: rng.chance(0.1) }] : []),
    ],
    linkedin: `https://www.linkedin.com/in/${personSlug(name.first, name.last, number)}`,
    social_media: socialMedia(rng, department),
    location: [rng.pick(home.cities), home.name, home.country],
    department,
    seniority,
    gender: name.gender,
    skills,
    education: education(rng, department, home, regionsOf(home), joined),
    keywords: rng.chance(0.3)
      ? null
      : [
          ...rng.sample(facts.industry.keywords, rng.between(1, 3)),
          ...rng.sample(pools.buzzNouns, rng.between(0, 2)),
        ],
    secondary_position: secondaryPositions(rng, plan, at.company),
  };
}

/**
 * The data set's people, one at a time, each employed by a company `generateCompanies` yields
 * for the same `companies`, `seed` and `idStart`.
 */
export function* generatePeople(opts: {
  companies: number;
  people: number;
  seed: number;
  idStart?: number;
}): Generator<Person> {
  checkOptions(opts);
  const plan = staffing(opts.seed, opts.companies, opts.people, firstNumber(opts.seed, opts.idStart));
  for (let index = 0; index < opts.people; index++) yield buildPerson(plan, index);
}
