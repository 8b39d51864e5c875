// One line for people to read per change event, as `enrich changes` prints it.
import type { ChangeEvent, Job, Title } from './events.js';

const job = (j: Job | null) =>
  j === null
    ? 'no company'
    : `${j.position ?? '?'} (${j.seniority ?? '?'}) at ${j.company_name ?? j.company_id ?? '?'}`;
const title = (t: Title) => `${t.position ?? '?'} (${t.seniority ?? '?'})`;

/** What happened, in a few words: `fp… new_company: Analyst (Other) at Acme → Manager (Manager) at Beta`. */
export function describeChange(event: ChangeEvent): string {
  switch (event.type) {
    case 'person.created':
      return event.data.person_id;
    case 'company.created':
      return event.data.company_id;
    case 'person.updated':
      return `${event.data.person_id} ${event.data.fields.join(',')}`;
    case 'company.updated':
      return `${event.data.company_id} ${event.data.fields.join(',')}`;
    case 'person.removed':
      return `${event.data.person_id} ${event.data.reason}`;
    case 'company.removed':
      return `${event.data.company_id} ${event.data.reason}`;
    case 'person.job_changed': {
      const { person_id, change, previous, current } = event.data;
      return `${person_id} ${change}: ${job(previous)} → ${job(current)}`;
    }
    case 'person.title_changed': {
      const { person_id, previous, current, promotion } = event.data;
      return `${person_id} ${promotion ? 'promotion' : 'title'}: ${title(previous)} → ${title(current)}`;
    }
  }
}

/** The line `enrich changes` prints: id, commit time, type, what happened. */
export const changeLine = (event: ChangeEvent) =>
  `${event.id}  ${event.timestamp}  ${event.type.padEnd(20)}  ${describeChange(event)}`;
