import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMPANIES, PEOPLE, ROBERT } from '../helpers/app.js';
import { enrich } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/pg-database.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-match-'));
const db = join(dir, 'enrich.db');

/** Writes a list into the test's directory; returns its path. */
function list(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const csv = (text: string, delimiter = ',') =>
  parse(text, { bom: true, delimiter, relax_column_count: true }) as string[][];

/** The rows of a CSV output as objects by header (the last column of a name wins). */
const records = (text: string, delimiter = ',') => {
  const [header, ...rows] = csv(text, delimiter);
  return rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i]])));
};

beforeAll(() => {
  const people = list('people.ndjson', PEOPLE.map((p) => JSON.stringify(p)).join('\n'));
  const companies = list('companies.ndjson', COMPANIES.map((c) => JSON.stringify(c)).join('\n'));
  expect(enrich(['import', 'people', people, '--db', db]).status).toBe(0);
  expect(enrich(['import', 'companies', companies, '--db', db]).status).toBe(0);
});

// Jane (fp…1) has jane.citizen@ and the shared info@acme.com.au at work, jane@gmail.com at home; José (fp…2)
// shares info@; Sam (fp…3) has only a personal address.
const MESSY = [
  'Full Name,E-Mail ,Profile-URL,Notes',
  '"Citizen, Jane",Jane.Citizen@ACME.com.au,,"Met at the expo, Sydney',
  'Follow up in ""March"""',
  'José,,https://www.linkedin.com/in/jos%C3%A9-garc%C3%ADa/,',
  'Sam,sam.lee@outlook.com,,  leading and trailing spaces  ',
  'Shared inbox,info@acme.com.au,,',
  'Typo,not-an-email,,',
  'Stranger,nobody@nowhere.com.au,,€ ünïcödé',
  ',,,no identifier at all',
].join('\n');

describe('enrich match', () => {
  it('maps messy headers, matches each row and keeps every input value, row order and quoting intact', () => {
    const run = enrich(['match', 'people', list('messy.csv', `${MESSY}\n`), '--db', db]);
    expect(run.stderr).toContain(
      'Matching people by "E-Mail " → work_email, personal_email; "Profile-URL" → ln_url',
    );
    expect(run.stderr).toContain('not used: "Full Name", "Notes"');
    expect(run.stderr).toContain('7 rows: 3 matched (42.9%), 1 not found, 1 ambiguous, 2 invalid in');
    expect(run.status).toBe(0);
    const [header, ...rows] = csv(run.stdout);
    const [inHeader, ...inRows] = csv(MESSY);
    expect(header).toEqual([
      ...inHeader!,
      'enrich_status',
      'enrich_matched_by',
      'enrich_id',
      'enrich_likelihood',
      'enrich_problem',
    ]);
    expect(rows.map((row) => row.slice(0, 4))).toEqual(inRows);
    const missing = /^Give at least one identifier: id, ln_slug, ln_url, work_email, /;
    expect(rows.map((row) => row.slice(4))).toEqual([
      ['matched', 'work_email', 'fp000000000001', '', ''],
      ['matched', 'ln_url', 'fp000000000002', '', ''],
      ['matched', 'personal_email', 'fp000000000003', '', ''],
      [
        'ambiguous',
        '',
        '',
        '',
        'The identifiers match 2 different records; give one that identifies a single record.',
      ],
      ['invalid', '', '', '', 'work_email: not an e-mail address (expected name@domain.tld)'],
      ['not_found', '', '', '', ''],
      ['invalid', '', '', '', expect.stringMatching(missing)],
    ]);
  });

  it('reads a BOM and semicolons, reports a bad row by its line, writes it as invalid and goes on (exit 1)', () => {
    const file = list(
      'bom.csv',
      '\ufeffName;Work_Email;Company\r\n"Jane; CFO";jane.citizen@acme.com.au;Acme\r\nBad;row;with;too many\r\nJosé;jose@acme.com.au;Acme\r\n',
    );
    const out = join(dir, 'bom-out.csv');
    const run = enrich(['match', 'people', file, '--out', out, '--db', db]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${file}:3: 4 fields where the header has 3`);
    expect(run.stderr).toContain(
      '3 rows: 2 matched (66.7%), 0 not found, 0 ambiguous, 1 invalid (1 malformed)',
    );
    const text = readFileSync(out, 'utf8');
    expect(text.startsWith('\ufeffName;Work_Email;Company;enrich_status;')).toBe(true);
    expect(text).toContain(
      '\r\n"Jane; CFO";jane.citizen@acme.com.au;Acme;matched;work_email;fp000000000001;;\r\n',
    );
    expect(records(text, ';').map((r) => [r.Name, r.enrich_status, r.enrich_id, r.enrich_problem])).toEqual([
      ['Jane; CFO', 'matched', 'fp000000000001', ''],
      ['Bad', 'invalid', '', '4 fields where the header has 3'],
      ['José', 'matched', 'fp000000000002', ''],
    ]);
  });

  it('reports a quote never closed by the line it opens on', () => {
    const file = list(
      'open-quote.csv',
      'Email,Note\njane.citizen@acme.com.au,fine\njose@acme.com.au,"never closed\nsam@x.au,lost\n',
    );
    const run = enrich(['match', 'people', file, '--db', db]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${file}:3: a quote opened here is never closed`);
    expect(records(run.stdout).map((r) => r.enrich_status)).toEqual(['matched', 'invalid']);
  });

  it('reads gzip by its content and tab-separated text from stdin, writing tabs back', () => {
    const tsv = 'LinkedIn URL\tWork Email\nau.linkedin.com/in/jane-citizen\t\n\tjose@acme.com.au\n';
    const run = enrich(['match', 'people', '-', '--db', db], {}, gzipSync(tsv));
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(
      'LinkedIn URL\tWork Email\tenrich_status\tenrich_matched_by\tenrich_id\tenrich_likelihood\tenrich_problem\n' +
        'au.linkedin.com/in/jane-citizen\t\tmatched\tln_url\tfp000000000001\t\t\n' +
        '\tjose@acme.com.au\tmatched\twork_email\tfp000000000002\t\t\n',
    );
    const file = list('list.tsv.data', gzipSync(tsv));
    expect(enrich(['match', 'people', file, '--db', db]).stdout).toBe(run.stdout);
  });

  it('flattens --fields into columns named by their paths', () => {
    const file = list('fields.csv', 'email\njane.citizen@acme.com.au\nnobody@nowhere.com.au\n');
    const run = enrich([
      'match',
      'people',
      file,
      '--fields',
      'name,emails.work.value,social_media.github',
      '--db',
      db,
    ]);
    expect(run.status).toBe(0);
    expect(csv(run.stdout)).toEqual([
      [
        'email',
        'enrich_status',
        'enrich_matched_by',
        'enrich_id',
        'enrich_likelihood',
        'enrich_problem',
        'name',
        'emails.work.value',
        'social_media.github',
      ],
      [
        'jane.citizen@acme.com.au',
        'matched',
        'work_email',
        'fp000000000001',
        '',
        '',
        'Jane Citizen',
        'jane.citizen@acme.com.au; info@acme.com.au',
        '{"handle":42,"connections":"500+","followers":10,"stars":3}',
      ],
      ['nobody@nowhere.com.au', 'not_found', '', '', '', '', '', '', ''],
    ]);
  });

  it('refuses an unknown field, listing the valid ones', () => {
    const run = enrich([
      'match',
      'people',
      list('f.csv', 'email\na@b.au\n'),
      '--fields',
      'name,shoe_size',
      '--db',
      db,
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/--fields: Unknown field "shoe_size" in fields; valid fields: id, name, /);
  });

  it('matches NDJSON into NDJSON, the record (or its selected fields) nested after the line’s own members', () => {
    const file = list(
      'list.ndjson',
      '{"contact":{"x":1},"email":"jane.citizen@acme.com.au","score":1.50}\n{"email":"nobody@nowhere.com.au"}\nnot json\n',
    );
    const run = enrich(['match', 'people', file, '--fields', 'name,current_company.name', '--db', db]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${file}:3: not valid JSON`);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      '{"contact":{"x":1},"email":"jane.citizen@acme.com.au","score":1.50,"enrich_status":"matched",' +
        '"enrich_matched_by":["work_email"],"enrich_id":"fp000000000001","enrich_likelihood":null,"enrich_problem":null,' +
        '"enrich_record":{"id":"fp000000000001","name":"Jane Citizen"}}',
    );
    expect(JSON.parse(lines[1]!)).toEqual({
      email: 'nobody@nowhere.com.au',
      enrich_status: 'not_found',
      enrich_matched_by: null,
      enrich_id: null,
      enrich_likelihood: null,
      enrich_problem: null,
      enrich_record: null,
    });
    expect(JSON.parse(lines[2]!)).toMatchObject({
      enrich_status: 'invalid',
      enrich_problem: 'not valid JSON',
      enrich_input: 'not json',
    });
  });

  it('maps each NDJSON object by the members it carries, read from stdin', () => {
    const lines = '{"ref":1,"website":"https://shop.acme.com.au/about"}\n{"ref":2,"abn":"51 824 753 556"}\n';
    const run = enrich(['match', 'companies', '-', '--db', db], {}, lines);
    expect(run.stderr).toContain('Matching companies by "website" → website; "abn" → abn; not used: "ref"');
    expect(run.stdout.split('\n').map((line) => line && JSON.parse(line).enrich_matched_by)).toEqual([
      ['website'],
      ['abn'],
      '',
    ]);
  });

  it('nests the whole record as stored without --fields', () => {
    const run = enrich([
      'match',
      'people',
      list('whole.ndjson', '{"email":"sam.lee@outlook.com"}\n'),
      '--db',
      db,
    ]);
    expect(JSON.parse(run.stdout).enrich_record).toEqual(PEOPLE[2]);
  });

  it('lets --map choose the column and parameter', () => {
    const file = list('map.csv', 'Email,Contact\njane.citizen@acme.com.au,sam.lee@outlook.com\n');
    const run = enrich([
      'match',
      'people',
      file,
      '--map',
      'Contact=personal_email',
      '--map',
      'Email=',
      '--db',
      db,
    ]);
    expect(run.stderr).toContain('Matching people by "Contact" → personal_email; not used: "Email"');
    expect(records(run.stdout)[0]).toMatchObject({ enrich_status: 'matched', enrich_id: 'fp000000000003' });
  });

  it('refuses a list with no usable column, listing its headers, and writes nothing', () => {
    const out = join(dir, 'never.csv');
    const run = enrich([
      'match',
      'people',
      list('useless.csv', 'Name,Phone\nJane,0400\n'),
      '--out',
      out,
      '--db',
      db,
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('headers found: "Name", "Phone"');
    expect(existsSync(out)).toBe(false);
  });

  it('matches companies by website and ABN, naming a field enrich_<path> beside a column of that name', () => {
    const file = list(
      'companies.csv',
      'Company Website,ABN,name\nhttps://shop.acme.com.au/about,,Acme shop\n,51 824 753 556,Acme\n,51 824 753 557,Bad ABN\nhttps://www.other.example,,Nobody\n',
    );
    const run = enrich(['match', 'companies', file, '--fields', 'name', '--db', db]);
    expect(run.stderr).toContain('Matching companies by "Company Website" → website; "ABN" → abn');
    expect(
      records(run.stdout).map((r) => [r.enrich_status, r.enrich_matched_by, r.enrich_id, r.enrich_name]),
    ).toEqual([
      ['matched', 'website', 'f000000000001', 'Acme Holdings'],
      ['matched', 'abn', 'f000000000001', 'Acme Holdings'],
      ['invalid', '', '', ''],
      ['not_found', '', '', ''],
    ]);
  });

  it('matches against PostgreSQL as against SQLite', async () => {
    const database = await createTestDatabase();
    try {
      const env = { DATABASE_URL: database.url };
      expect(enrich(['import', 'people', join(dir, 'people.ndjson')], env).status).toBe(0);
      const file = list('pg.csv', `${MESSY}\n`);
      const fields = ['--fields', 'name,emails.personal'];
      const overPostgres = enrich(['match', 'people', file, ...fields], env);
      expect(overPostgres.status).toBe(0);
      expect(overPostgres.stdout).toBe(enrich(['match', 'people', file, ...fields, '--db', db]).stdout);
    } finally {
      await database.drop();
    }
  });

  it('refuses a list of binary data without echoing a byte of it', () => {
    const file = list(
      'list.xlsx',
      Buffer.concat([Buffer.from('PK\u0003\u0004\u001b[2J'), Buffer.alloc(64, 0x1b)]),
    );
    const run = enrich(['match', 'people', file, '--db', db]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'enrich: the list is not text (a ZIP archive (an Excel workbook?)): give CSV or NDJSON\n',
    );
  });

  it('says so when there is no store to match against, or no such input', () => {
    const file = list('one.csv', 'email\na@b.au\n');
    expect(enrich(['match', 'people', file, '--db', join(dir, 'none.db')]).stderr).toContain('no store at');
    expect(enrich(['match', 'people', join(dir, 'missing.csv'), '--db', db]).stderr).toContain(
      'missing.csv: no such file',
    );
  });
});

describe('enrich match by name and company', () => {
  beforeAll(() => {
    expect(
      enrich(['import', 'people', list('robert.ndjson', JSON.stringify(ROBERT)), '--db', db]).status,
    ).toBe(0);
  });

  it('says how likely each match by name is (enrich_likelihood), and why a row was not matched', () => {
    const file = list(
      'names.csv',
      'Name,Company Website\nRobert Example,acme.com.au\nBob Example,acme.com.au\nRobert,acme.com.au\n',
    );
    const run = enrich(['match', 'people', file, '--db', db]);
    expect(run.stderr).toContain('Matching people by "Name" → name; "Company Website" → company_domain');
    expect(
      records(run.stdout).map((r) => [
        r.enrich_status,
        r.enrich_matched_by,
        r.enrich_likelihood,
        r.enrich_problem,
      ]),
    ).toEqual([
      ['matched', 'name; company_domain', '10', ''],
      ['matched', 'name; company_domain', '8', ''],
      ['invalid', '', '', expect.stringMatching(/name/)],
    ]);
  });
});

describe('enrich match writing CSV a spreadsheet opens', () => {
  const file = () =>
    list(
      'formulas.csv',
      'Email,Phone,Note\njane.citizen@acme.com.au,+61 2 9999 1234,=HYPERLINK("http://x.example")\n',
    );

  it('writes cells that a spreadsheet would run as formulas with a leading quote, phone numbers as they are', () => {
    const run = enrich(['match', 'people', file(), '--db', db]);
    expect(run.status).toBe(0);
    expect(records(run.stdout)[0]).toMatchObject({
      Phone: '+61 2 9999 1234',
      Note: `'=HYPERLINK("http://x.example")`,
      enrich_status: 'matched',
    });
  });

  it('writes them as they are with --no-formula-guard', () => {
    const run = enrich(['match', 'people', file(), '--no-formula-guard', '--db', db]);
    expect(records(run.stdout)[0]).toMatchObject({ Note: '=HYPERLINK("http://x.example")' });
  });
});
