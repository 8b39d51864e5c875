// The people's months, streamed: quiet lines copied as they were read, changed ones rewritten; then newcomers.
import type { ClassifiedEvent } from '../../changes/events.js';
import type { Person } from '../../schemas/person.js';
import { ID_BLOCK } from '../numbering.js';
import { buildPerson } from '../person.js';
import { recordRng } from '../random.js';
import { staffing } from '../staffing.js';
import { addMonths } from './calendar.js';
import { roundByChance } from './companies.js';
import { join } from './employment.js';
import { personCreated } from './expected.js';
import { type DataFile, type LineWriter, readLines } from './ndjson-files.js';
import { evolvePerson, isQuiet, type PeopleWorld } from './person-months.js';
import { NEWCOMERS } from './rates.js';
import { RecordEdit } from './record-edit.js';
import { readHead } from './record-head.js';
import { personNumber } from './record-numbers.js';
import { KIND } from './streams.js';

export interface PeopleCounts {
  read: number;
  written: number;
  /** The first unused person record number. */
  nextNumber: number;
}

/**
 * Streams DIR's people into `out` and their events into `onEvents`, then appends newcomers. Memory does
 * not grow with the number of people: each line is done with before the next.
 */
export async function evolvePeople(
  world: PeopleWorld,
  input: DataFile,
  out: LineWriter,
  nextNumber: number,
  onEvents: (id: string, events: ClassifiedEvent[]) => void,
  onProgress?: (bytesRead: number, totalBytes: number) => void,
): Promise<PeopleCounts> {
  const counts = { read: 0, written: 0, nextNumber };
  const onLine = (buffer: Buffer, start: number, end: number) => {
    counts.read++;
    const head = readHead(buffer, start, end, true);
    if (head) counts.nextNumber = Math.max(counts.nextNumber, (personNumber(head.id) ?? -1) + 1);
    if (head?.employer !== undefined && isQuiet(world, head.id, head.employer)) {
      out.line(buffer.subarray(start, end));
      counts.written++;
      return;
    }
    const person = JSON.parse(buffer.toString('utf8', start, end)) as Person;
    if (typeof person.id !== 'string') throw new Error('a person without an id');
    counts.nextNumber = Math.max(counts.nextNumber, (personNumber(person.id) ?? -1) + 1);
    const outcome = evolvePerson(world, person);
    if (outcome.record) {
      out.line(JSON.stringify(outcome.record));
      counts.written++;
    }
    if (outcome.events.length > 0) onEvents(person.id, outcome.events);
  };
  await readLines(input.file, onLine, () => out.drain(), onProgress);
  const newcomers = roundByChance(
    recordRng(world.seed, KIND.newcomerCount, 0),
    counts.read * NEWCOMERS * world.months,
  );
  for (let k = 0; k < newcomers; k++) {
    const person = newcomer(world, counts.nextNumber + k);
    if (!person) break;
    out.line(JSON.stringify(person));
    counts.written++;
    onEvents(person.id, [personCreated(person.id)]);
    await out.drain();
  }
  counts.nextNumber += newcomers;
  return counts;
}

/**
 * Someone new to the data set, numbered `number`: drawn as the generator draws person `number` of its
 * block from the evolve's own seed, then employed by a company of the set from a month of the evolve.
 */
function newcomer(world: PeopleWorld, number: number): Person | undefined {
  const rng = recordRng(world.seed, KIND.newcomers, number);
  const month = 1 + rng.int(world.months);
  const employer = world.employers.pick(rng, month, null);
  if (!employer) return undefined;
  const block = Math.floor(number / ID_BLOCK) * ID_BLOCK;
  // A one-company plan: the person comes with no secondary positions at companies the set lacks.
  const person = buildPerson(staffing(world.seed, 1, 1, block), number - block);
  const generatedAt = person.current_company?.name;
  join(new RecordEdit(person), rng, employer, addMonths(world.asOf, month), String(number), true);
  const { description } = person;
  const name = employer.summary.name;
  if (description && generatedAt && name) person.description = description.split(generatedAt).join(name);
  return person;
}
