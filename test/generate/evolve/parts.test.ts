import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClassifiedEvent } from '../../../src/changes/index.js';
import { EventsById } from '../../../src/generate/evolve/events-by-id.js';
import { LineWriter } from '../../../src/generate/evolve/ndjson-files.js';
import { readHead } from '../../../src/generate/evolve/record-head.js';
import { companyNumber, personNumber } from '../../../src/generate/evolve/record-numbers.js';
import { companyId, personId } from '../../../src/generate/handles.js';
import { ID_SPACE } from '../../../src/generate/numbering.js';

const root = mkdtempSync(path.join(tmpdir(), 'enrich-evolve-parts-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('record numbers read back from ids', () => {
  it('are the numbers the ids were minted from', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: ID_SPACE - 1 }), (number) => {
        expect(personNumber(personId(number))).toBe(number);
        expect(companyNumber(companyId(number))).toBe(number);
      }),
    );
  });

  it('are unknown for ids the generator does not mint', () => {
    expect(personNumber('fp12')).toBeUndefined();
    expect(personNumber(companyId(5))).toBeUndefined();
    expect(companyNumber('acme')).toBeUndefined();
  });
});

describe('the head of a line', () => {
  const head = (line: string, employer = true) => {
    const buffer = Buffer.from(`${line}\n{"id":"next","current_company":{"id":"elsewhere"}}`);
    return readHead(buffer, 0, line.length, employer);
  };

  it("gives the id and a person's employer id without parsing", () => {
    expect(head('{"id":"fp1","name":"A","current_company":{"id":"f9","name":"B"}}')).toEqual({
      id: 'fp1',
      employer: 'f9',
    });
    expect(head('{"id":"fp1","current_company":null}')).toEqual({ id: 'fp1', employer: null });
    expect(head('{"id":"f1","name":"A"}', false)).toEqual({ id: 'f1' });
  });

  it('leaves the employer unknown for any other layout, never reading the next line', () => {
    expect(head('{"id":"fp1","name":"A"}')).toEqual({ id: 'fp1' });
    expect(head('{"id":"fp1","current_company":{"name":"B"}}')).toEqual({ id: 'fp1' });
    expect(head('{"id":"fp1","current_company":{"id":"","name":"B"}}')).toEqual({ id: 'fp1' });
    expect(head('{ "id": "fp1" }')).toBeUndefined();
    expect(head('{"name":"A","id":"fp1"}')).toBeUndefined();
  });
});

describe('events written in id order', () => {
  const event = (id: string, n: number): ClassifiedEvent => ({
    type: 'person.updated',
    data: { person_id: id, fields: [`f${n}`] },
  });

  it('spills sorted runs to disk, merges them, keeps each record’s events together and cleans up', async () => {
    const ids = Array.from({ length: 250 }, (_, i) => `fp${String((i * 7919) % 1000).padStart(4, '0')}`);
    const events = new EventsById(root, 40);
    for (const id of ids) events.add(id, [event(id, 1), event(id, 2)]);
    const file = path.join(root, 'out.ndjson');
    const out = new LineWriter(file, false);
    await events.writeTo(out);
    await out.close();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const expected = [...ids]
      .sort()
      .flatMap((id) => [event(id, 1), event(id, 2)].map((e) => JSON.stringify(e)));
    expect(lines).toEqual(expected);
    expect(events.counts.get('person.updated')).toBe(500);
    expect(readdirSync(root).filter((name) => name.startsWith('.evolve-runs'))).toEqual([]);
  });
});
