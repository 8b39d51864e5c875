import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ClassifiedEvent, classifyChange, seniorityRank } from '../../src/changes/index.js';
import { SENIORITIES } from '../../src/vocabulary/seniorities.js';

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const seniority = maybe(fc.constantFrom(...SENIORITIES, 'Chief Wizard'));
const company = maybe(
  fc.record(
    {
      id: fc.constantFrom('f1', 'f2', ''),
      name: fc.constantFrom('Acme', 'Beta', ''),
      size: fc.constantFrom('1 - 10', '11 - 50'),
    },
    { requiredKeys: [] },
  ),
);
// Contact details carry a marker no other value holds, so finding one in an event is certain.
const email = fc.stringMatching(/^[a-z]{1,8}$/).map((local) => `${local}@contact.example`);
const phone = fc.stringMatching(/^[0-9]{8}$/).map((digits) => `+61 ${digits} CONTACT`);

/** Person bodies with the fields a derived event reads, plus contact details and anything else. */
const personBody = fc.record(
  {
    id: fc.constant('fp1'),
    name: fc.string(),
    position: maybe(fc.constantFrom('Engineer', 'Sales Manager', 'Head of Sales', 'Owner')),
    seniority,
    current_company: company,
    emails: fc.record({
      personal: fc.array(fc.record({ value: email })),
      work: fc.array(fc.record({ value: email })),
    }),
    phones: fc.array(fc.record({ value: phone })),
    extra: fc.jsonValue(),
  },
  { requiredKeys: ['id'] },
);

const classifyPeople = (before: object | null, after: object | null) =>
  classifyChange({
    entity: 'people',
    id: 'fp1',
    before: before && JSON.stringify(before),
    after: after && JSON.stringify(after),
  });

describe('classifying, for any records', () => {
  it('a record written as it was is unchanged, as text, as bytes or reformatted', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (record) => {
        const text = JSON.stringify(record);
        for (const after of [text, Buffer.from(text), JSON.stringify(record, null, 2)]) {
          expect(classifyChange({ entity: 'companies', id: 'c', before: text, after })).toEqual({
            change: 'unchanged',
            events: [],
          });
        }
      }),
    );
  });

  it('the fields are exactly the top-level names whose value changed, each once', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (a, b) => {
          const result = classifyChange({
            entity: 'companies',
            id: 'c',
            before: JSON.stringify(a),
            after: JSON.stringify(b),
          });
          const names = new Set([...Object.keys(a), ...Object.keys(b)]);
          const differs = [...names].filter(
            (k) =>
              !Object.hasOwn(a, k) || !Object.hasOwn(b, k) || JSON.stringify(a[k]) !== JSON.stringify(b[k]),
          );
          expect(new Set(result.fields ?? [])).toEqual(new Set(differs));
          expect(result.fields ?? []).toHaveLength(differs.length);
          expect(result.change).toBe(differs.length === 0 ? 'unchanged' : 'updated');
        },
      ),
    );
  });

  it('a created or removed record gives its one event and nothing derived', () => {
    fc.assert(
      fc.property(personBody, (record) => {
        expect(classifyPeople(null, record).events.map((e) => e.type)).toEqual(['person.created']);
        expect(classifyPeople(record, null).events.map((e) => e.type)).toEqual(['person.removed']);
      }),
    );
  });

  it('an update gives its updated event first and at most one derived event after it', () => {
    fc.assert(
      fc.property(personBody, personBody, (a, b) => {
        const [first, ...rest] = classifyPeople(a, b).events;
        if (first) expect(first.type).toBe('person.updated');
        expect(rest.length).toBeLessThanOrEqual(1);
        for (const event of rest)
          expect(['person.job_changed', 'person.title_changed']).toContain(event.type);
      }),
    );
  });

  it('a promotion only ever goes up the seniority order', () => {
    fc.assert(
      fc.property(personBody, personBody, (a, b) => {
        for (const event of classifyPeople(a, b).events) {
          if (event.type !== 'person.title_changed') continue;
          const from = seniorityRank(event.data.previous.seniority);
          const to = seniorityRank(event.data.current.seniority);
          expect(event.data.promotion).toBe(from !== undefined && to !== undefined && to > from);
        }
      }),
    );
  });

  it('no event carries an e-mail address or a phone number', () => {
    fc.assert(
      fc.property(maybe(personBody), maybe(personBody), (a, b) => {
        const events: ClassifiedEvent[] = classifyPeople(a, b).events;
        const text = JSON.stringify(events);
        expect(text).not.toContain('@contact.example');
        expect(text).not.toContain('CONTACT');
      }),
    );
  });
});
