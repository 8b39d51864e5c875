// The records contract for hashed e-mail lookups: records as an import prepares them, found by the SHA-256 of
// their addresses through the identifier index, on every write path. Part of recordsContract.
import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { personLookupKey } from '../../../src/identifiers/params.js';
import { Invalid, prepareLine } from '../../../src/ingest/prepare.js';
import { resolve } from '../../../src/lookup/resolve.js';
import type { RecordStore, RecordToStore } from '../../../src/store/records.js';

/** `printf %s ADDRESS | sha256sum`, as a caller computes it. */
const sha256 = (address: string) => createHash('sha256').update(address).digest('hex');

/** A person as an import prepares it: identifiers (hashes included) derived from the record. */
function prepared(n: number, work: string[], personal: string[] = [], extra: object = {}): RecordToStore {
  const id = `fp${String(n).padStart(12, '0')}`;
  const record = {
    id,
    emails: { work: work.map((value) => ({ value })), personal: personal.map((value) => ({ value })) },
    ...extra,
  };
  const line = prepareLine('people', JSON.stringify(record));
  if (line instanceof Invalid) throw new Error(line.message);
  return line;
}

/** What a lookup by one parameter answers: the record's id, or the problem's code and matches. */
async function lookup(
  store: RecordStore,
  param: 'work_email' | 'work_email_sha256' | 'personal_email_sha256',
  raw: string,
) {
  try {
    const { record, matchedBy } = await resolve(store, 'people', [[param, personLookupKey(param, raw)]]);
    return { id: record.id, matchedBy };
  } catch (error) {
    const { code, extensions } = error as { code: string; extensions: { matches?: unknown } };
    return { code, matches: extensions.matches };
  }
}

/** Registers the hashed e-mail cases in the caller's describe; `store` is the test's open, empty store. */
export function hashedEmailContract(store: () => RecordStore) {
  it('finds a person by the SHA-256 of a work or personal address, as typed in any case', async () => {
    await store().upsert('people', [prepared(1, ['Jane.Citizen@Acme.com.au'], ['jane@gmail.com'])]);
    expect(await lookup(store(), 'work_email_sha256', sha256('jane.citizen@acme.com.au'))).toEqual({
      id: 'fp000000000001',
      matchedBy: ['work_email_sha256'],
    });
    const upper = sha256('jane@gmail.com').toUpperCase();
    expect((await lookup(store(), 'personal_email_sha256', upper)).id).toBe('fp000000000001');
    // A hash is of one kind of address: a work address's hash is not a personal one's.
    expect((await lookup(store(), 'personal_email_sha256', sha256('jane.citizen@acme.com.au'))).code).toBe(
      'not_found',
    );
    // The hash of the address as typed, not normalised, matches nothing.
    expect((await lookup(store(), 'work_email_sha256', sha256('Jane.Citizen@Acme.com.au'))).code).toBe(
      'not_found',
    );
  });

  it("no longer finds a person by an old address's hash once the record is updated", async () => {
    await store().upsert('people', [prepared(1, ['old@acme.com'])]);
    await store().upsert('people', [prepared(1, ['new@acme.com'])]);
    expect((await lookup(store(), 'work_email_sha256', sha256('old@acme.com'))).code).toBe('not_found');
    expect((await lookup(store(), 'work_email_sha256', sha256('new@acme.com'))).id).toBe('fp000000000001');
    await store().delete('people', ['fp000000000001']);
    expect((await lookup(store(), 'work_email_sha256', sha256('new@acme.com'))).code).toBe('not_found');
  });

  it("answers a shared inbox's hash with the 409 its address gets, listing the same ids", async () => {
    await store().upsert('people', [
      prepared(2, ['info@acme.com']),
      prepared(1, ['info@acme.com', 'a@acme.com']),
    ]);
    const byHash = await lookup(store(), 'work_email_sha256', sha256('info@acme.com'));
    const byAddress = await lookup(store(), 'work_email', 'info@acme.com');
    expect(byHash).toEqual({
      code: 'ambiguous_match',
      matches: { work_email_sha256: ['fp000000000001', 'fp000000000002'] },
    });
    expect(Object.values(byHash.matches as object)).toEqual(Object.values(byAddress.matches as object));
  });

  it('indexes the hashes of records written by a load into an empty entity', async () => {
    const records = Array.from({ length: 60 }, (_, n) => prepared(n, [`p${n}@acme.com`], [`p${n}@home.net`]));
    const bulk = await store().beginBulkLoad?.('people');
    try {
      await (bulk ? bulk.upsert(records) : store().upsert('people', records));
    } finally {
      await bulk?.finish();
    }
    expect((await lookup(store(), 'work_email_sha256', sha256('p42@acme.com'))).id).toBe('fp000000000042');
    expect((await lookup(store(), 'personal_email_sha256', sha256('p7@home.net'))).id).toBe('fp000000000007');
  });
}
