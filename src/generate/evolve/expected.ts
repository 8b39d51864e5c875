// The events a snapshot refresh must produce, from what the simulation knows it did (not by diffing records).
import type { ClassifiedEvent, Job, Title } from '../../changes/events.js';
import { isPromotion } from '../../changes/seniority.js';
import type { Company } from '../../schemas/company.js';
import type { Person } from '../../schemas/person.js';
import type { RecordEdit } from './record-edit.js';

export const companyCreated = (id: string): ClassifiedEvent => ({
  type: 'company.created',
  data: { company_id: id },
});
export const companyRemoved = (id: string): ClassifiedEvent => ({
  type: 'company.removed',
  data: { company_id: id, reason: 'snapshot' },
});
export const personCreated = (id: string): ClassifiedEvent => ({
  type: 'person.created',
  data: { person_id: id },
});
export const personRemoved = (id: string): ClassifiedEvent => ({
  type: 'person.removed',
  data: { person_id: id, reason: 'snapshot' },
});

/** A company the simulation changed: updated with the fields it set to new values, or nothing. */
export function companyUpdated(id: string, edit: RecordEdit<Company>): ClassifiedEvent[] {
  const fields = edit.changedFields();
  return fields.length === 0 ? [] : [{ type: 'company.updated', data: { company_id: id, fields } }];
}

const jobOf = (person: Person): Job => ({
  company_id: person.current_company?.id ?? null,
  company_name: person.current_company?.name ?? null,
  position: person.position ?? null,
  seniority: person.seniority ?? null,
});

const titleOf = (person: Person): Title => ({
  position: person.position ?? null,
  seniority: person.seniority ?? null,
});

/** Where the person worked before the evolve and where after: the simulation's own account. */
export interface Employment {
  before: string | null;
  after: string | null;
}

function derived(id: string, edit: RecordEdit<Person>, employment: Employment): ClassifiedEvent | undefined {
  const { before, after } = employment;
  if (before !== after) {
    return {
      type: 'person.job_changed',
      data: {
        person_id: id,
        change: before === null ? 'joined' : after === null ? 'departure' : 'new_company',
        previous: before === null ? null : jobOf(edit.before),
        current: after === null ? null : jobOf(edit.record),
      },
    };
  }
  const previous = titleOf(edit.before);
  const current = titleOf(edit.record);
  if (
    after === null ||
    (previous.position === current.position && previous.seniority === current.seniority)
  ) {
    return undefined;
  }
  return {
    type: 'person.title_changed',
    data: {
      person_id: id,
      company_id: edit.record.current_company?.id ?? null,
      previous,
      current,
      promotion: isPromotion(previous.seniority, current.seniority),
    },
  };
}

/** A person the simulation changed and kept: updated with the fields it set to new values, then the signal. */
export function personUpdated(
  id: string,
  edit: RecordEdit<Person>,
  employment: Employment,
): ClassifiedEvent[] {
  const fields = edit.changedFields();
  if (fields.length === 0) return [];
  const signal = derived(id, edit, employment);
  const updated: ClassifiedEvent = { type: 'person.updated', data: { person_id: id, fields } };
  return signal ? [updated, signal] : [updated];
}
