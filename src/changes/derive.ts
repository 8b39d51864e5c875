// The signals derived from a person's update (notes/events.md): a job change, else a title change.
import type { ClassifiedEvent, Job, Title } from './events.js';
import { isPromotion } from './seniority.js';

type Body = Record<string, unknown>;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function currentCompany(person: Body): Body | undefined {
  const company = person.current_company;
  return company !== null && typeof company === 'object' && !Array.isArray(company)
    ? (company as Body)
    : undefined;
}

/**
 * Who a person works for: the company's id when it has one, else its name, else no one. Tagged, so that
 * an id never equals a name that happens to read the same.
 */
export function employerKey(person: Body): string | undefined {
  const company = currentCompany(person);
  if (!company) return undefined;
  if (typeof company.id === 'string' && company.id !== '') return `id:${company.id}`;
  if (typeof company.name === 'string' && company.name !== '') return `name:${company.name}`;
  return undefined;
}

function jobOf(person: Body): Job {
  const company = currentCompany(person);
  return {
    company_id: text(company?.id),
    company_name: text(company?.name),
    position: text(person.position),
    seniority: text(person.seniority),
  };
}

const titleOf = (person: Body): Title => ({
  position: text(person.position),
  seniority: text(person.seniority),
});

/** The fields whose change can derive an event; an update touching none of them derives nothing. */
const DERIVING_FIELDS = new Set(['current_company', 'position', 'seniority']);

/**
 * The derived event of a person updated from `before` to `after` (`fields` as the update lists them),
 * or undefined when the update changed neither their employer nor, at the same employer, their title.
 */
export function derivedPersonEvent(
  personId: string,
  before: Body,
  after: Body,
  fields: readonly string[],
): ClassifiedEvent | undefined {
  if (!fields.some((field) => DERIVING_FIELDS.has(field))) return undefined;
  const was = employerKey(before);
  const is = employerKey(after);
  if (was !== is) {
    const change = was === undefined ? 'joined' : is === undefined ? 'departure' : 'new_company';
    return {
      type: 'person.job_changed',
      data: {
        person_id: personId,
        change,
        previous: was === undefined ? null : jobOf(before),
        current: is === undefined ? null : jobOf(after),
      },
    };
  }
  if (is === undefined) return undefined;
  const previous = titleOf(before);
  const current = titleOf(after);
  // Absent and null read the same in an event, so a title only changes when what it reports changes.
  if (previous.position === current.position && previous.seniority === current.seniority) return undefined;
  return {
    type: 'person.title_changed',
    data: {
      person_id: personId,
      company_id: text(currentCompany(after)?.id),
      previous,
      current,
      promotion: isPromotion(previous.seniority, current.seniority),
    },
  };
}
