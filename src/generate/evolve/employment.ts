// A person's working life, as the simulation changes it: joining a company, leaving work, promotions, new titles.

import { seniorityRank } from '../../changes/seniority.js';
import type { Person } from '../../schemas/person.js';
import type { Department } from '../../vocabulary/departments.js';
import { SENIORITIES, SENIORITY_ORDER, type Seniority } from '../../vocabulary/seniorities.js';
import { pickDepartment, positionFor, timeInRole } from '../career.js';
import { asciiLetters, emailLetters } from '../handles.js';
import type { Rng } from '../random.js';
import { DEPARTMENT_PROFILES } from '../roles.js';
import { DELIVERABILITY, SENIORITY_WEIGHTS } from '../values.js';
import { endedRole, type Month } from './calendar.js';
import { type Employer, summaryOf } from './employers.js';
import { OFFICE_PHONE } from './rates.js';
import type { RecordEdit } from './record-edit.js';

type Edit = RecordEdit<Person>;
type SecondaryPosition = NonNullable<Person['secondary_position']>[number];

const headline = (position: string | null | undefined, company: string | null | undefined) =>
  position && company ? `${position} at ${company}` : (company ?? position ?? null);

function startRole(edit: Edit, date: Month): void {
  edit.set('time_in_current_role', timeInRole(date));
  edit.set('month_joined', date.month);
  edit.set('year_joined', date.year);
}

/** The job a person leaves, kept as an ended role at the head of secondary_position (at most four kept). */
function keepPastJob(edit: Edit, until: Month): void {
  const { current_company: company, position, month_joined: month, year_joined: year } = edit.record;
  if (!company?.id || !position || !month || !year) return;
  const past: SecondaryPosition = {
    company_id: company.id,
    company_name: company.name ?? null,
    company_size: company.size ?? null,
    company_website: company.website ?? null,
    company_linkedin: company.linkedin ?? null,
    company_industry: company.industry?.[0] ?? null,
    cleaned_position: position,
    month_joined: month,
    year_joined: String(year),
    time_in_current_role: endedRole({ year, month }, until),
    seniority: edit.record.seniority ?? null,
    department: edit.record.department ?? null,
  };
  edit.set('secondary_position', [past, ...(edit.record.secondary_position ?? [])].slice(0, 4));
}

/** The office line a person lists goes with the job; a new one comes with the next, as often as generated. */
function changeOfficePhone(edit: Edit, rng: Rng, newLine: string | undefined): void {
  const phones = edit.record.phones;
  if (!phones) return;
  const office = new Set(edit.record.current_company?.main_phones ?? []);
  const kept = phones.filter((phone) => !office.has(phone.value ?? ''));
  const added = newLine !== undefined && rng.chance(OFFICE_PHONE);
  if (added) kept.push({ value: newLine, is_dnd: rng.chance(0.1) });
  if (added || kept.length !== phones.length) edit.set('phones', kept);
}

/**
 * A work address at the new employer: the company's format, then the person's record number, which no
 * generated address ends with after a dot, so it is unique without knowing who else works there.
 */
function workAddress(person: Person, employer: Employer, token: string): string {
  const letters = emailLetters(
    employer.emailFormat,
    asciiLetters(person.first_name ?? ''),
    asciiLetters(person.last_name ?? ''),
  );
  return `${letters}.${token}@${employer.fqdn}`;
}

const asSeniority = (value: unknown): Seniority =>
  SENIORITIES.includes(value as Seniority) ? (value as Seniority) : 'Other';
const asDepartment = (value: unknown): Department =>
  typeof value === 'string' && Object.hasOwn(DEPARTMENT_PROFILES, value) ? (value as Department) : 'Other';

/**
 * The person starts at `employer` in `date`: a new position, seniority and department drawn as the
 * generator draws them, a work address there, and the job they leave kept as past. A newcomer to the
 * data set keeps the role they were generated with and has no past job to keep.
 */
export function join(
  edit: Edit,
  rng: Rng,
  employer: Employer,
  date: Month,
  token: string,
  newcomer = false,
): void {
  const company = summaryOf(employer);
  if (!newcomer) keepPastJob(edit, date);
  changeOfficePhone(edit, rng, company.main_phones?.[0]);
  if (!newcomer) {
    const seniority = rng.weighted(SENIORITY_WEIGHTS);
    const department =
      seniority === 'No Data Available' ? 'No Data Available' : pickDepartment(rng, employer.industry);
    edit.set('position', rng.chance(0.03) ? null : positionFor(rng, seniority, department));
    edit.set('department', department);
    edit.set('seniority', seniority);
  }
  edit.set('current_company', company);
  edit.set('headline', headline(edit.record.position, company.name));
  startRole(edit, date);
  const work = [
    { value: workAddress(edit.record, employer, token), deliverability: rng.weighted(DELIVERABILITY) },
  ];
  edit.set('emails', { personal: edit.record.emails?.personal ?? [], work });
}

/** The person leaves the workforce: no employer, position or work address; the job is kept as past. */
export function leaveWork(edit: Edit, rng: Rng, date: Month): void {
  const { position, current_company: company } = edit.record;
  keepPastJob(edit, date);
  changeOfficePhone(edit, rng, undefined);
  edit.set('headline', position && company?.name ? `Former ${position} at ${company.name}` : null);
  edit.set('position', null);
  edit.set('current_company', null);
  edit.set('time_in_current_role', null);
  edit.set('month_joined', null);
  edit.set('year_joined', null);
  if (edit.record.emails) edit.set('emails', { ...edit.record.emails, work: [] });
}

function newTitle(edit: Edit, date: Month, position: string): void {
  edit.set('position', position);
  edit.set('headline', headline(position, edit.record.current_company?.name));
  startRole(edit, date);
}

/** A new title at the same seniority; false when none differs from the current one. */
export function retitle(edit: Edit, rng: Rng, date: Month): boolean {
  const seniority = asSeniority(edit.record.seniority);
  const department = asDepartment(edit.record.department);
  for (let tries = 0; tries < 8; tries++) {
    const position = positionFor(rng, seniority, department);
    if (position === edit.record.position) continue;
    newTitle(edit, date, position);
    return true;
  }
  return false;
}

/** The highest rung a promotion within a company reaches: owners and boards are not promoted into. */
const TOP_RUNG = SENIORITY_ORDER.indexOf('C-Suite / Partner');

/** One step up the ladder at the same employer; someone at the top or off the ladder gets a new title. */
export function promote(edit: Edit, rng: Rng, date: Month): boolean {
  const rank = seniorityRank(edit.record.seniority);
  if (rank === undefined || rank >= TOP_RUNG) return retitle(edit, rng, date);
  const seniority = SENIORITY_ORDER[rank + 1] as Seniority;
  edit.set('seniority', seniority);
  newTitle(edit, date, positionFor(rng, seniority, asDepartment(edit.record.department)));
  return true;
}
