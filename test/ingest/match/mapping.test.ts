import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMPANY_COLUMNS, normaliseHeader, PEOPLE_COLUMNS } from '../../../src/ingest/match/columns.js';
import { ListError } from '../../../src/ingest/match/list.js';
import { MemberMapping, mapColumns, parseOverride, rowParams } from '../../../src/ingest/match/mapping.js';
import { NAME_MATCH_PARAMS } from '../../../src/lookup/name-match.js';
import { COMPANY_LOOKUP, type LookupOperation, PEOPLE_LOOKUP } from '../../../src/lookup/operations.js';

const people = PEOPLE_LOOKUP as LookupOperation;
const NAME_MATCH: readonly string[] = NAME_MATCH_PARAMS;
const companies = COMPANY_LOOKUP as LookupOperation;
const mapped = (headers: string[], operation = people, overrides: string[] = []) =>
  mapColumns(headers, operation, overrides.map(parseOverride)).map(({ header, params }) => [header, params]);

describe('mapping the columns of a list to lookup parameters', () => {
  it('recognises the headers people actually write, whatever their case, spaces, dashes and underscores', () => {
    expect(mapped(['Name', 'E-Mail ', 'Profile-URL', 'Company'])).toEqual([
      ['Name', ['name']],
      ['E-Mail ', ['work_email', 'personal_email']],
      ['Profile-URL', ['ln_url']],
      ['Company', ['company_name']],
    ]);
    expect(
      mapped([
        'First Name',
        'Last Name',
        'Full Name',
        'Company Domain',
        'Company LinkedIn',
        'enrich_company_id',
      ]),
    ).toEqual([
      ['First Name', ['first_name']],
      ['Last Name', ['last_name']],
      ['Full Name', ['name']],
      ['Company Domain', ['company_domain']],
      ['Company LinkedIn', ['company_ln_slug']],
      ['enrich_company_id', ['company_id']],
    ]);
    expect(mapped(['work_email', 'LinkedIn URL', 'personal e-mail'])).toEqual([
      ['work_email', ['work_email']],
      ['LinkedIn URL', ['ln_url']],
      ['personal e-mail', ['personal_email']],
    ]);
    expect(mapped(['Company Website', 'Domain', 'A.B.N.', 'ABN', 'LinkedIn'], companies)).toEqual([
      ['Company Website', ['website']],
      ['Domain', ['fqdn']],
      ['ABN', ['abn']],
      ['LinkedIn', ['ln_url']],
    ]);
  });

  it('gives a parameter to the most specific column, then to the leftmost', () => {
    // "Email" may be either kind; a column naming the work address takes work_email from it.
    expect(mapped(['Email', 'Work Email'])).toEqual([
      ['Email', ['personal_email']],
      ['Work Email', ['work_email']],
    ]);
    expect(mapped(['LinkedIn', 'LinkedIn URL'])).toEqual([['LinkedIn', ['ln_url']]]);
  });

  it('offers only the parameters the operation accepts', () => {
    expect(mapped(['Email', 'Website'], companies)).toEqual([['Website', ['website']]]);
    expect(mapped(['Website', 'Email'])).toEqual([['Email', ['work_email', 'personal_email']]]);
    for (const [table, operation] of [
      [PEOPLE_COLUMNS, people],
      [COMPANY_COLUMNS, companies],
    ] as const) {
      for (const header of Object.keys(table)) {
        const accepted = table[header]!.filter((p) => operation.params.includes(p));
        // A name alone, or a company alone, matches nobody (never across companies).
        const halfNameMatch = operation === people && accepted.every((p) => NAME_MATCH.includes(p));
        if (accepted.length === 0 || halfNameMatch)
          expect(() => mapColumns([header], operation)).toThrow(ListError);
        else expect(mapped([header], operation)).toEqual([[header, accepted]]);
      }
    }
  });

  it("uses names only with companies, and a row's name only when it gives a company too", () => {
    expect(mapped(['Name', 'Email'])).toEqual([['Email', ['work_email', 'personal_email']]]);
    expect(mapped(['Website', 'Email'])).toEqual([['Email', ['work_email', 'personal_email']]]);
    const uses = mapColumns(['Email', 'Name', 'Company'], people);
    const row = (fields: string[]) => rowParams(uses, { fields, malformed: false } as never);
    expect(row(['a@b.co', 'Jane Citizen', ''])).toEqual({ work_email: 'a@b.co', personal_email: 'a@b.co' });
    expect(row(['', '', 'Acme'])).toEqual({});
    expect(row(['', 'Jane Citizen', 'Acme'])).toEqual({ name: 'Jane Citizen', company_name: 'Acme' });
    // A one-word name is no name match: beside an address it is left out, alone it is the row's problem.
    expect(row(['a@b.co', 'Jane', 'Acme'])).toEqual({ work_email: 'a@b.co', personal_email: 'a@b.co' });
    expect(row(['', 'Jane', 'Acme'])).toEqual({ name: 'Jane', company_name: 'Acme' });
  });

  it('never takes a bare ID column for a record id, only enrich_id', () => {
    expect(() => mapped(['ID', 'Name'])).toThrow(ListError);
    expect(mapped(['ID', 'enrich_id'])).toEqual([['enrich_id', ['id']]]);
  });

  it('lets --map name a column for a parameter, or leave a column unused, over what the headers say', () => {
    expect(mapped(['Email', 'Contact'], people, ['Contact=work_email'])).toEqual([
      ['Email', ['personal_email']],
      ['Contact', ['work_email']],
    ]);
    expect(mapped(['Email', 'LinkedIn'], people, ['email=', 'LinkedIn=ln_url'])).toEqual([
      ['LinkedIn', ['ln_url']],
    ]);
    expect(mapped(['Col=1', 'Web'], companies, ['Col=1=website'])).toEqual([['Col=1', ['website']]]);
  });

  it('refuses a --map that names no column, a parameter not accepted, or one parameter twice', () => {
    expect(() => mapped(['Email'], people, ['Mail=work_email'])).toThrow(
      /no column "Mail"; headers found: "Email"/,
    );
    expect(() => mapped(['Email'], people, ['Email=website'])).toThrow(/accepted: id, ln_slug/);
    expect(() => mapped(['A', 'B'], people, ['A=work_email', 'B=work_email'])).toThrow(
      /more than one column/,
    );
    expect(() => parseOverride('work_email')).toThrow(/COLUMN=PARAM/);
  });

  it('refuses a list with no usable column, listing the headers it found', () => {
    expect(() => mapped(['Name', 'Phone', 'toString', 'constructor'])).toThrow(
      'no column gives an identifier to match people by; headers found: "Name", "Phone", "toString", "constructor"',
    );
  });

  it('maps any headers without failing, unless none is usable', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 20 }), { maxLength: 8 }),
        fc.boolean(),
        (headers, isPeople) => {
          const operation = isPeople ? people : companies;
          try {
            const uses = mapColumns(headers, operation);
            const given = uses.flatMap((use) => use.params);
            expect(new Set(given).size).toBe(given.length);
            for (const param of given) expect(operation.params).toContain(param);
          } catch (error) {
            expect(error).toBeInstanceOf(ListError);
          }
        },
      ),
    );
  });

  it('normalises a header to the same key whatever case, spacing, dashes and underscores it is written with', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(PEOPLE_COLUMNS)),
        fc.array(fc.constantFrom(' ', '-', '_', '  '), { maxLength: 3 }),
        fc.boolean(),
        (key, separators, upper) => {
          let header = key;
          for (const separator of separators) {
            const at = Math.floor(header.length / 2);
            header = header.slice(0, at) + separator + header.slice(at);
          }
          expect(normaliseHeader(upper ? header.toUpperCase() : header)).toBe(key);
        },
      ),
    );
  });
});

describe('the parameters of a row', () => {
  const uses = mapColumns(['Email', 'LinkedIn', 'ABN'], people);

  it('gives each used column’s value, leaving blank cells out', () => {
    expect(rowParams(uses, { fields: [' jane@acme.com.au', '   ', '12'] })).toEqual({
      work_email: ' jane@acme.com.au',
      personal_email: ' jane@acme.com.au',
    });
  });

  it('reads NDJSON members by key, numbers as their text, anything else as absent', () => {
    const ndjson = mapColumns(['abn', 'website'], companies);
    expect(rowParams(ndjson, { text: '', object: { abn: 51824753556, website: { url: 'x' } } })).toEqual({
      abn: '51824753556',
    });
  });

  it('gives none for a malformed row, which is not looked up', () => {
    expect(rowParams(uses, { fields: ['', '', ''], malformed: { line: 3, reason: 'x' } })).toBeUndefined();
  });
});

describe('the parameters of NDJSON objects', () => {
  it('come from each object’s own members, whichever it carries, with the overrides applied', () => {
    const members = new MemberMapping(people, [parseOverride('contact=personal_email')]);
    const row = (object: Record<string, unknown>) => ({ text: JSON.stringify(object), object });
    expect(members.params(row({ email: 'a@b.au' }))).toEqual({
      work_email: 'a@b.au',
      personal_email: 'a@b.au',
    });
    expect(members.params(row({ email: 'a@b.au', work_email: 'w@b.au' }))).toEqual({
      work_email: 'w@b.au',
      personal_email: 'a@b.au',
    });
    expect(members.params(row({ contact: 'c@d.au', linkedin: 'x' }))).toEqual({
      personal_email: 'c@d.au',
      ln_url: 'x',
    });
    expect(members.params(row({ phone: '0400' }))).toEqual({});
    expect(
      members.params({ text: '[]', malformed: { line: 1, reason: 'not a JSON object' } }),
    ).toBeUndefined();
  });
});
