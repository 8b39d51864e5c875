// One person's months: a draw a month picks what happens, applied in order; then the events it makes.
import type { ClassifiedEvent } from '../../changes/events.js';
import type { Person } from '../../schemas/person.js';
import { addMonths } from './calendar.js';
import type { CompanyWorld, Evolution } from './companies.js';
import { join, leaveWork, promote, retitle } from './employment.js';
import { personRemoved, personUpdated } from './expected.js';
import { CLOSURE_MOVES, IN_WORK, OUT_OF_WORK } from './rates.js';
import { RecordEdit } from './record-edit.js';
import { personNumber } from './record-numbers.js';
import { KIND, recordStream } from './streams.js';

export type PeopleWorld = Evolution & Pick<CompanyWorld, 'renamed' | 'resized' | 'closedAt' | 'employers'>;

const total = (rates: Record<string, number>) => Object.values(rates).reduce((a, b) => a + b, 0);
const IN_WORK_ANY = total(IN_WORK);
const OUT_OF_WORK_ANY = total(OUT_OF_WORK);

/** The change a month's draw `r` picks from `rates` (tried in order), or undefined for none. */
function picked<K extends string>(r: number, rates: Readonly<Record<K, number>>): K | undefined {
  let bound = 0;
  for (const kind of Object.keys(rates) as K[]) {
    bound += rates[kind];
    if (r < bound) return kind;
  }
  return undefined;
}

/**
 * True when nothing happens to a person in any month: the check every line gets before it is parsed.
 * `employer` is their company's id, null when they have none. It agrees with evolvePerson, which makes
 * the same draws: a draw that picks nothing is one that changes nothing.
 */
export function isQuiet(world: PeopleWorld, id: string, employer: string | null): boolean {
  if (
    employer !== null &&
    (world.closedAt.has(employer) || world.renamed.has(employer) || world.resized.has(employer))
  ) {
    return false;
  }
  const rng = recordStream(world.seed, KIND.personMonths, id);
  const any = employer === null ? OUT_OF_WORK_ANY : IN_WORK_ANY;
  for (let month = 0; month < world.months; month++) if (rng.next() < any) return false;
  return true;
}

/** Who a person works for, as the simulation tracks it: the company's id, else its name, else no one. */
export const employerOfPerson = (person: Person): string | null =>
  person.current_company?.id || person.current_company?.name || null;

/** What ends a person's work address at a new employer: their record number, as in their personal one. */
const addressToken = (id: string) => String(personNumber(id) ?? id.toLowerCase().replace(/[^a-z0-9]/g, ''));

/** A company renamed or resized: the current_company of the people still there follows, and the headline. */
function followEmployer(edit: RecordEdit<Person>, world: PeopleWorld, employer: string): void {
  const company = edit.record.current_company;
  const name = world.renamed.get(employer);
  const size = world.resized.get(employer);
  if (!company || (name === undefined && size === undefined)) return;
  edit.set('current_company', {
    ...company,
    ...(name === undefined ? {} : { name }),
    ...(size === undefined ? {} : { size }),
  });
  const { headline } = edit.record;
  if (name !== undefined && company.name && headline?.endsWith(company.name)) {
    edit.set('headline', headline.slice(0, headline.length - company.name.length) + name);
  }
}

export interface PersonOutcome {
  /** The person as the new snapshot holds them; null when they left the data set. */
  record: Person | null;
  events: ClassifiedEvent[];
}

/** Lives a person's months; the record is changed in place. */
export function evolvePerson(world: PeopleWorld, record: Person): PersonOutcome {
  const { id } = record;
  const edit = new RecordEdit(record);
  const draws = recordStream(world.seed, KIND.personMonths, id);
  const rng = recordStream(world.seed, KIND.personEdits, id);
  const token = addressToken(id);
  const before = employerOfPerson(record);
  let employer = before;
  const moveTo = (month: number): boolean => {
    const next = world.employers.pick(rng, month, employer);
    if (next) {
      join(edit, rng, next, addMonths(world.asOf, month), token);
      employer = next.id;
    }
    return next !== undefined;
  };
  const leave = (month: number) => {
    leaveWork(edit, rng, addMonths(world.asOf, month));
    employer = null;
  };
  for (let month = 1; month <= world.months; month++) {
    const r = draws.next();
    const date = addMonths(world.asOf, month);
    if (employer !== null && world.closedAt.get(employer) === month) {
      // A closing company's people find work elsewhere or leave the workforce; that is their month.
      if (!(rng.chance(CLOSURE_MOVES) && moveTo(month))) leave(month);
      continue;
    }
    const change = employer === null ? picked(r, OUT_OF_WORK) : picked(r, IN_WORK);
    if (change === 'removed') return { record: null, events: [personRemoved(id)] };
    if (change === 'joined' || change === 'move') moveTo(month);
    else if (change === 'departure') leave(month);
    else if (change === 'promotion') promote(edit, rng, date);
    else if (change === 'retitle') retitle(edit, rng, date);
  }
  // Still with the company they were read with: it may have been renamed or resized meanwhile.
  if (employer !== null && edit.record.current_company === edit.before.current_company) {
    followEmployer(edit, world, employer);
  }
  return { record, events: personUpdated(id, edit, { before, after: employer }) };
}
