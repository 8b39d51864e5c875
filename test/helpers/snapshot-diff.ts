// The events a snapshot refresh from one data set directory to another makes, by the classifier, in the
// order of expected-changes.ndjson, which is the order a refresh commits them: companies, then people; of
// each, the records kept or added by id, then the records the new snapshot leaves out by id.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type ClassifiedEvent, classifyChange, type Entity } from '../../src/changes/index.js';

/** Each line of DIR's file for `entity` (plain or .gz), by the record's id. */
export function linesById(dir: string, entity: Entity): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(join(dir, `${entity}.ndjson`), 'utf8');
  } catch {
    text = gunzipSync(readFileSync(join(dir, `${entity}.ndjson.gz`))).toString('utf8');
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return new Map(lines.map((line) => [(JSON.parse(line) as { id: string }).id, line]));
}

export function classifySnapshots(before: string, after: string): ClassifiedEvent[] {
  const events: ClassifiedEvent[] = [];
  for (const entity of ['companies', 'people'] as const) {
    const old = linesById(before, entity);
    const now = linesById(after, entity);
    const kept = [...now.keys()].sort();
    const removed = [...old.keys()].filter((id) => !now.has(id)).sort();
    for (const id of [...kept, ...removed]) {
      events.push(...classifyChange({ entity, id, before: old.get(id), after: now.get(id) }).events);
    }
  }
  return events;
}

/** The events of DIR/expected-changes.ndjson. */
export const expectedChanges = (dir: string): ClassifiedEvent[] =>
  readFileSync(join(dir, 'expected-changes.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ClassifiedEvent);
