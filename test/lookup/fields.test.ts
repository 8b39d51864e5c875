import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProblemError } from '../../src/errors.js';
import { FieldCatalogue, projectRecord } from '../../src/lookup/fields.js';
import { Company } from '../../src/schemas/company.js';
import { Person } from '../../src/schemas/person.js';

const people = new FieldCatalogue(Person);
const companies = new FieldCatalogue(Company);

const jane = {
  id: 'fp000000000001',
  name: 'Jane Citizen',
  position: null,
  current_company: { id: 'f000000000001', name: 'Acme Holdings', size: '11 - 50' },
  emails: { work: [{ value: 'jane@acme.com.au', deliverability: 'Deliverable' }], personal: [] },
  location: ['Sydney', 'NSW', 'Australia'],
};
const body = JSON.stringify(jane);

function thrown(fn: () => unknown): ProblemError {
  try {
    fn();
  } catch (error) {
    return error as ProblemError;
  }
  throw new Error('expected a problem');
}

describe('field selection', () => {
  it('lists top-level fields and dotted paths into objects and arrays of objects', () => {
    expect(people.paths).toContain('name');
    expect(people.paths).toContain('current_company.name');
    expect(people.paths).toContain('emails.work.value');
    expect(people.paths).toContain('social_media.github.followers');
    expect(companies.paths).toContain('name');
    expect(people.paths).not.toContain('current_company.name.first');
  });

  it('keeps id and the selected paths, in the record’s own order', () => {
    const out = JSON.parse(projectRecord(body, people.parse('current_company.name,name')));
    expect(Object.keys(out)).toEqual(['id', 'name', 'current_company']);
    expect(out).toEqual({ id: jane.id, name: 'Jane Citizen', current_company: { name: 'Acme Holdings' } });
  });

  it('keeps nulls as null and leaves absent fields absent', () => {
    const out = JSON.parse(projectRecord(body, people.parse('position,headline')));
    expect(out).toEqual({ id: jane.id, position: null });
  });

  it('projects each element of an array of objects', () => {
    const out = JSON.parse(projectRecord(body, people.parse(['emails.work.value'])));
    expect(out).toEqual({ id: jane.id, emails: { work: [{ value: 'jane@acme.com.au' }] } });
  });

  it('takes a whole object when both it and a path inside it are named', () => {
    const whole = people.parse('current_company.name,current_company');
    expect(JSON.parse(projectRecord(body, whole)).current_company).toEqual(jane.current_company);
  });

  it('answers an unknown field with a 400 naming it and listing the valid ones', () => {
    const problem = thrown(() => people.parse('name,salary'));
    expect(problem.status).toBe(400);
    expect(problem.code).toBe('invalid_parameter');
    expect(problem.extensions).toMatchObject({ parameter: 'fields', field: 'salary' });
    expect(problem.extensions.accepted).toEqual(people.paths);
    expect(problem.detail).toContain('"salary"');
  });

  it('answers an empty selection with a 400', () => {
    expect(thrown(() => people.parse(' , ')).code).toBe('invalid_parameter');
  });

  it('selecting every top-level field gives the record back unchanged', () => {
    const topLevel = people.paths.filter((p) => !p.includes('.'));
    fc.assert(
      fc.property(fc.subarray(topLevel), (present) => {
        const record = Object.fromEntries([['id', 'fp1'], ...present.map((name) => [name, null])]);
        const text = JSON.stringify(record);
        expect(projectRecord(text, people.parse(topLevel))).toBe(text);
      }),
    );
  });

  it('a projection holds only selected top-level keys, id always among them, and projecting again changes nothing', () => {
    const topLevel = people.paths.filter((p) => !p.includes('.') && p !== 'id');
    fc.assert(
      fc.property(fc.subarray(topLevel, { minLength: 1 }), fc.subarray(topLevel), (chosen, present) => {
        const record = Object.fromEntries([['id', 'fp1'], ...present.map((name) => [name, 'x'])]);
        const tree = people.parse(chosen);
        const once = projectRecord(JSON.stringify(record), tree);
        const keys = Object.keys(JSON.parse(once));
        expect(keys[0]).toBe('id');
        for (const key of keys.slice(1)) expect(chosen).toContain(key);
        expect(projectRecord(once, tree)).toBe(once);
      }),
    );
  });
});
