// Roles, start dates and schooling: the career half of a person record.
import type { Person } from '../schemas/person.js';
import { DEPARTMENTS, type Department } from '../vocabulary/departments.js';
import type { Seniority } from '../vocabulary/seniorities.js';
import type { Industry } from './industries.js';
import type { Region } from './places.js';
import { type Rng, weights } from './random.js';
import { BOARD_TITLES, DEPARTMENT_PROFILES, OWNER_TITLES } from './roles.js';
import { AS_OF, MONTHS } from './values.js';

const DEPARTMENT_WEIGHTS = weights(
  DEPARTMENTS.map((d) => [d, d === 'No Data Available' ? 2 : d === 'Other' ? 4 : 6] as const),
);

/** Half the staff work in the industry's core departments; the rest anywhere. */
export function pickDepartment(rng: Rng, industry: Industry): Department {
  return rng.chance(0.5) ? rng.pick(industry.core) : rng.weighted(DEPARTMENT_WEIGHTS);
}

/** A job title that fits the seniority and department, e.g. "Head of Marketing". */
export function positionFor(rng: Rng, seniority: Seniority, department: Department): string {
  const profile = DEPARTMENT_PROFILES[department];
  switch (seniority) {
    case 'Board Member / Company Director':
      return rng.pick(BOARD_TITLES);
    case 'Owner / Founder':
      return rng.pick(OWNER_TITLES);
    case 'C-Suite / Partner':
      return rng.pick(profile.chief);
    case 'VP/Director / Head of':
      return rng.pick([
        `Head of ${profile.area}`,
        `${profile.area} Director`,
        `General Manager, ${profile.area}`,
      ]);
    case 'Manager':
      return rng.pick([
        `${profile.area} Manager`,
        `Senior ${profile.area} Manager`,
        `${profile.area} Team Leader`,
      ]);
    default: {
      const role = rng.pick(profile.roles);
      return rng.chance(0.2) && !role.startsWith('Senior') ? `Senior ${role}` : role;
    }
  }
}

export interface Joined {
  month: number;
  year: number;
}

/** A start date no later than the generator's "now", mostly recent. */
export function pickJoined(rng: Rng, maxYearsAgo = 20): Joined {
  const year = AS_OF.year - Math.floor(rng.next() ** 2 * (maxYearsAgo + 1));
  const month = rng.between(1, year === AS_OF.year ? AS_OF.month : 12);
  return { month, year };
}

/**
 * The text form of a role still held.
 * @example timeInRole({ month: 1, year: 2023 }) // "Jan '23 - Present"
 */
export function timeInRole({ month, year }: Joined): string {
  return `${MONTHS[month - 1]} '${String(year % 100).padStart(2, '0')} - Present`;
}

const STUDY_YEARS: Readonly<Record<string, number>> = {
  Certificate: 1,
  Diploma: 2,
  Master: 2,
  Graduate: 1,
  Doctor: 4,
  Juris: 3,
};

/** A qualification from the person's region (sometimes another), finished before they joined. */
export function education(
  rng: Rng,
  department: Department,
  home: Region,
  regions: readonly Region[],
  joined: Joined | null,
): Person['education'] {
  if (rng.chance(0.1)) return null;
  const [field, degree] = rng.pick(DEPARTMENT_PROFILES[department].study);
  const vocational = degree.startsWith('Certificate') || degree === 'Diploma';
  const region = rng.chance(0.75) ? home : rng.pick(regions);
  const end = (joined?.year ?? AS_OF.year) - rng.between(0, 15);
  const start = end - (STUDY_YEARS[degree.split(' ')[0]!] ?? rng.between(3, 4));
  return {
    field: rng.chance(0.05) ? null : field,
    degree,
    date_range: `${start} - ${end}`,
    school_name: rng.pick(vocational ? region.colleges : region.universities),
  };
}
