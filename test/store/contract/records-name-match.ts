// The records contract for matching a person by name and company: records as an import prepares them, matched
// through the name-at-company index on every write path, scored, and answered as one record, 404 or 409.
// Part of recordsContract.
import { expect, it } from 'vitest';
import { Invalid, prepareLine } from '../../../src/ingest/prepare.js';
import { type PeopleLookupParam, peopleKeys } from '../../../src/lookup/operations.js';
import { resolve } from '../../../src/lookup/resolve.js';
import type { RecordStore, RecordToStore } from '../../../src/store/records.js';

const ACME = {
  id: 'fc1',
  name: 'Acme Holdings Pty Ltd',
  website: 'https://www.acme.com.au',
  linkedin: 'acme',
};
const GLOBEX = { id: 'fc2', name: 'Globex Limited', website: 'https://globex.co.nz', linkedin: 'globex' };

/** A person as an import prepares it: identifiers (names at their company included) derived from the record. */
function prepared(entity: 'people' | 'companies', record: object): RecordToStore {
  const line = prepareLine(entity, JSON.stringify(record));
  if (line instanceof Invalid) throw new Error(line.message);
  return line;
}

const person = (n: number, first: string, last: string, company: object | undefined, extra: object = {}) =>
  prepared('people', {
    id: `fp${String(n).padStart(12, '0')}`,
    first_name: first,
    last_name: last,
    name: `${first} ${last}`,
    ...(company ? { current_company: company } : {}),
    ...extra,
  });

/** What a `/people` lookup with these parameters answers: id, matched-by and likelihood, or the problem. */
async function lookup(store: RecordStore, params: Partial<Record<PeopleLookupParam, string>>) {
  try {
    const { keys, name } = peopleKeys(Object.entries(params) as Array<[PeopleLookupParam, string]>);
    const { record, matchedBy, likelihood } = await resolve(store, 'people', keys, name);
    return { id: record.id, matchedBy, likelihood };
  } catch (error) {
    const { code, extensions } = error as { code: string; extensions: { matches?: unknown } };
    return { code, matches: extensions.matches };
  }
}

/** Registers the name-match cases in the caller's describe; `store` is the test's open, empty store. */
export function nameMatchContract(store: () => RecordStore) {
  it('matches a person by name at a company given by id, domain, LinkedIn or name, with its likelihood', async () => {
    await store().upsert('people', [
      person(1, 'Zoë', "O'Brien-Smith", ACME, { middle_name: 'Anne' }),
      person(2, 'Zoe', 'Obriensmith', GLOBEX),
    ]);
    const at = (company: object) => lookup(store(), { name: 'zoe anne obrien smith', ...company });
    // "obrien smith" as two words: the last word is the key, which the record's whole last name is not.
    expect((await at({ company_id: 'fc1' })).code).toBe('not_found');
    const jane = (company: object) =>
      lookup(store(), { first_name: 'ZOE', last_name: 'O’Brien Smith', ...company });
    expect(await jane({ company_id: 'fc1' })).toEqual({
      id: 'fp000000000001',
      matchedBy: ['first_name', 'last_name', 'company_id'],
      likelihood: 10,
    });
    expect((await jane({ company_domain: 'https://shop.acme.com.au/about' })).likelihood).toBe(10);
    expect((await jane({ company_ln_slug: 'ACME' })).id).toBe('fp000000000001');
    expect(await jane({ company_name: 'ACME HOLDINGS' })).toMatchObject({
      id: 'fp000000000001',
      likelihood: 8,
    });
    expect(await jane({ company_name: 'Globex Ltd.' })).toMatchObject({
      id: 'fp000000000002',
      likelihood: 8,
    });
  });

  it('matches short forms and initials lower, and answers 404 below min_likelihood', async () => {
    await store().upsert('people', [
      person(1, 'Robert', 'Smith', ACME),
      person(2, 'Elizabeth', 'Jones', ACME),
    ]);
    expect(await lookup(store(), { name: 'Bob Smith', company_domain: 'acme.com.au' })).toMatchObject({
      id: 'fp000000000001',
      likelihood: 8,
    });
    expect(await lookup(store(), { name: 'Liz Jones', company_id: 'fc1' })).toMatchObject({ likelihood: 8 });
    expect(await lookup(store(), { name: 'R. J. Smith', company_id: 'fc1' })).toMatchObject({
      id: 'fp000000000001',
      likelihood: 7,
    });
    // By company name, an initial is 5: under the default bar of 6, answered only when asked.
    expect((await lookup(store(), { name: 'R Smith', company_name: 'Acme Holdings' })).code).toBe(
      'not_found',
    );
    expect(
      await lookup(store(), { name: 'R Smith', company_name: 'Acme Holdings', min_likelihood: '5' }),
    ).toMatchObject({ id: 'fp000000000001', likelihood: 5 });
    expect((await lookup(store(), { name: 'Bob Smith', company_id: 'fc1', min_likelihood: '9' })).code).toBe(
      'not_found',
    );
    expect((await lookup(store(), { name: 'Tom Smith', company_id: 'fc1', min_likelihood: '1' })).code).toBe(
      'not_found',
    );
  });

  it('answers 409 listing both namesakes at one company, and never matches across companies', async () => {
    await store().upsert('people', [
      person(1, 'James', 'Brown', ACME),
      person(2, 'James', 'Brown', ACME, { middle_name: 'Q' }),
      person(3, 'Jim', 'Green', ACME),
      person(4, 'James', 'Green', GLOBEX),
    ]);
    expect(await lookup(store(), { name: 'James Brown', company_id: 'fc1' })).toEqual({
      code: 'ambiguous_match',
      matches: { name: ['fp000000000001', 'fp000000000002'] },
    });
    // The better match wins: the exact first name over a short form.
    await store().upsert('people', [person(5, 'James', 'Green', ACME)]);
    expect(await lookup(store(), { name: 'James Green', company_id: 'fc1' })).toMatchObject({
      id: 'fp000000000005',
      likelihood: 10,
    });
    // James Green at Globex is never the answer for Acme, nor the other way round.
    expect((await lookup(store(), { name: 'James Brown', company_id: 'fc2' })).code).toBe('not_found');
    expect(await lookup(store(), { name: 'James Green', company_id: 'fc2' })).toMatchObject({
      id: 'fp000000000004',
    });
  });

  it('lets strong identifiers decide, consulting the name only when none of them matched', async () => {
    await store().upsert('people', [
      person(1, 'Jane', 'Citizen', ACME, { emails: { work: [{ value: 'jane@acme.com.au' }] } }),
      person(2, 'John', 'Citizen', ACME, { emails: { work: [{ value: 'john@acme.com.au' }] } }),
    ]);
    const withName = { name: 'Jane Citizen', company_id: 'fc1' };
    expect(await lookup(store(), { work_email: 'john@acme.com.au', ...withName })).toEqual({
      id: 'fp000000000002',
      matchedBy: ['work_email'],
      likelihood: undefined,
    });
    expect(await lookup(store(), { work_email: 'nobody@acme.com.au', ...withName })).toEqual({
      id: 'fp000000000001',
      matchedBy: ['name', 'company_id'],
      likelihood: 10,
    });
  });

  it('finds people through the company index when their records do not carry the domain or slug', async () => {
    await store().upsert('companies', [
      prepared('companies', { id: 'fc9', fqdn: 'initech.com', linkedin: 'initech' }),
    ]);
    await store().upsert('people', [person(1, 'Peter', 'Gibbons', { id: 'fc9', name: 'Initech' })]);
    expect(await lookup(store(), { name: 'Pete Gibbons', company_domain: 'www.initech.com' })).toMatchObject({
      id: 'fp000000000001',
      likelihood: 8,
    });
    expect((await lookup(store(), { name: 'Peter Gibbons', company_ln_slug: 'initech' })).id).toBe(
      'fp000000000001',
    );
    expect((await lookup(store(), { name: 'Peter Gibbons', company_domain: 'initrode.com' })).code).toBe(
      'not_found',
    );
  });

  it('follows a person who changes company, and forgets a deleted one', async () => {
    await store().upsert('people', [person(1, 'Ann', 'Lee', ACME)]);
    await store().upsert('people', [person(1, 'Ann', 'Lee', GLOBEX)]);
    expect((await lookup(store(), { name: 'Ann Lee', company_id: 'fc1' })).code).toBe('not_found');
    expect((await lookup(store(), { name: 'Ann Lee', company_id: 'fc2' })).id).toBe('fp000000000001');
    await store().delete('people', ['fp000000000001']);
    expect((await lookup(store(), { name: 'Ann Lee', company_id: 'fc2' })).code).toBe('not_found');
  });
}
