import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openCsvReader } from '../../../src/ingest/match/csv-reader.js';
import { CsvWriter } from '../../../src/ingest/match/csv-writer.js';
import { DELIMITERS, type ListShape } from '../../../src/ingest/match/detect.js';
import type { ListRow } from '../../../src/ingest/match/list.js';

async function* chunksOf(bytes: Buffer, size: number) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function readAll(text: string | Buffer, delimiter: ListShape['delimiter'] = ',', chunk = 7) {
  const reader = await openCsvReader(chunksOf(Buffer.from(text), chunk), delimiter);
  const rows: ListRow[] = [];
  for await (const batch of reader.batches()) rows.push(...batch);
  return { columns: reader.columns, rows };
}

/** Cell text of any kind: delimiters, quotes, line breaks, non-ASCII, leading and trailing spaces. */
const cell = fc.string({
  unit: fc.constantFrom('a', 'Z', ' ', ',', ';', '\t', '"', '\n', '\r', '\r\n', 'é', '€'),
  maxLength: 8,
});

describe('reading a CSV list', () => {
  it('gives back every value csv-stringify wrote, whatever the delimiter and however the input is chunked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...DELIMITERS),
        fc.integer({ min: 1, max: 4 }).chain((width) =>
          fc.tuple(
            fc.array(
              cell.filter((c) => c.trim() !== ''),
              { minLength: width, maxLength: width },
            ),
            fc.array(
              fc
                .array(cell, { minLength: width, maxLength: width })
                .filter((r) => r.length > 1 || r[0] !== ''),
              { maxLength: 5 },
            ),
          ),
        ),
        fc.integer({ min: 1, max: 20 }),
        async (delimiter, [header, rows], chunk) => {
          const text = stringify([header, ...rows], { delimiter });
          const read = await readAll(text, delimiter, chunk);
          expect(read.columns).toEqual(header);
          expect(read.rows.map((r) => r.fields)).toEqual(rows);
          expect(read.rows.every((r) => r.malformed === undefined)).toBe(true);
        },
      ),
    );
  });

  it('strips a byte order mark, keeps quoted commas and line breaks, and skips blank lines', async () => {
    const read = await readAll('\ufeffName,Email\r\n"Citizen, Jane","a\r\nb"\r\n\r\n  \r\nSam,sam@x.au\r\n');
    expect(read.columns).toEqual(['Name', 'Email']);
    expect(read.rows.map((r) => r.fields)).toEqual([
      ['Citizen, Jane', 'a\r\nb'],
      ['Sam', 'sam@x.au'],
    ]);
  });

  it('keeps a row of the wrong width in its place, fitted to the header, reported by the line it starts on', async () => {
    const read = await readAll('a,b,c\n"1\n2",2,3\n4,5\n6,7,8,9\n"x\ny"\n10,11,12');
    expect(read.rows.map((r) => r.fields)).toEqual([
      ['1\n2', '2', '3'],
      ['4', '5', ''],
      ['6', '7', '8'],
      ['x\ny', '', ''],
      ['10', '11', '12'],
    ]);
    expect(read.rows.map((r) => r.malformed)).toEqual([
      undefined,
      { line: 4, reason: '2 fields where the header has 3' },
      { line: 5, reason: '4 fields where the header has 3' },
      { line: 6, reason: '1 fields where the header has 3; it spans lines 6-7 (is a quote left open?)' },
      undefined,
    ]);
  });

  it('reports a quote never closed at the line it opens, keeping the rows before it', async () => {
    const read = await readAll('a,b\n1,2\n\n3,"4\n5,6\n');
    expect(read.rows.map((r) => r.fields)).toEqual([
      ['1', '2'],
      ['', ''],
    ]);
    expect(read.rows[1]!.malformed).toEqual({
      line: 4,
      reason: 'a quote opened here is never closed: the rest of the input was read into one field',
    });
  });

  it('keeps a stray quote inside a field as text', async () => {
    const read = await readAll('Item,Size\nScreen,15" wide\n');
    expect(read.rows[0]!.fields).toEqual(['Screen', '15" wide']);
  });
});

describe('writing a matched CSV list', () => {
  const shape: ListShape = { format: 'csv', delimiter: ';', lineEnding: '\r\n', bom: true };

  it('keeps every input value as it was, in the input’s delimiter, line ending and byte order mark', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(cell, cell), { maxLength: 5 }), (rows) => {
        const writer = new CsvWriter(['Name', 'Email'], shape, [], { formulaGuard: false });
        const text =
          writer.head() +
          writer.rows(
            rows.map((fields) => ({ fields })),
            rows.map(() => ({ status: 'not_found' })),
          );
        expect(text.startsWith('\ufeff')).toBe(true);
        const parsed = parse(text, { bom: true, delimiter: ';', record_delimiter: '\r\n' }) as string[][];
        expect(parsed[0]).toEqual([
          'Name',
          'Email',
          'enrich_status',
          'enrich_matched_by',
          'enrich_id',
          'enrich_problem',
        ]);
        expect(parsed.slice(1)).toEqual(rows.map((r) => [...r, 'not_found', '', '', '']));
      }),
    );
  });

  it('adds fields as columns named by their paths, enrich_<path> when the list has that column already', () => {
    const writer = new CsvWriter(
      ['name', 'email'],
      { ...shape, delimiter: ',', bom: false, lineEnding: '\n' },
      ['name', 'id', 'current_company.name'],
    );
    const record = { json: '{"id":"fp1","name":"Jane","current_company":{"name":"Acme, Ltd"}}' };
    expect(writer.head()).toBe(
      'name,email,enrich_status,enrich_matched_by,enrich_id,enrich_problem,enrich_name,current_company.name\n',
    );
    expect(
      writer.rows(
        [{ fields: ['J', 'j@a.au'] }],
        [{ status: 'matched', matchedBy: ['work_email', 'ln_url'], id: 'fp1', record }],
      ),
    ).toBe('J,j@a.au,matched,work_email; ln_url,fp1,,Jane,"Acme, Ltd"\n');
  });

  it('refreshes the enrich_ columns of a list matched before instead of adding them again', () => {
    const writer = new CsvWriter(
      ['Email', 'enrich_status', 'Note', 'enrich_id'],
      { ...shape, bom: false },
      [],
    );
    expect(writer.head()).toBe('Email;enrich_status;Note;enrich_id;enrich_matched_by;enrich_problem\r\n');
    expect(
      writer.rows(
        [{ fields: ['a@b.au', 'not_found', 'x', ''] }],
        [{ status: 'matched', matchedBy: ['id'], id: 'fp2' }],
      ),
    ).toBe('a@b.au;matched;x;fp2;id;\r\n');
  });

  it('says why a row was not matched, and how likely a match by name is, in a list of people', () => {
    const writer = new CsvWriter(['Name', 'Company'], { ...shape, bom: false, lineEnding: '\n' }, [], {
      likelihood: true,
    });
    expect(writer.head()).toBe(
      'Name;Company;enrich_status;enrich_matched_by;enrich_id;enrich_likelihood;enrich_problem\n',
    );
    const rows = [
      { fields: ['Jane Citizen', 'Acme'] },
      { fields: ['', ''] },
      { fields: ['Bad', ''], malformed: { line: 4, reason: 'the row has 3 fields, the header 2' } },
      { fields: ['Nobody', 'Acme'] },
    ];
    expect(
      writer.rows(rows, [
        { status: 'matched', matchedBy: ['name', 'company_name'], id: 'fp1', likelihood: 8 },
        { status: 'invalid', problem: 'Give at least one identifier: id, ln_slug.' },
        { status: 'invalid' },
        { status: 'not_found' },
      ]),
    ).toBe(
      'Jane Citizen;Acme;matched;"name; company_name";fp1;8;\n' +
        ';;invalid;;;;Give at least one identifier: id, ln_slug.\n' +
        'Bad;;invalid;;;;the row has 3 fields, the header 2\n' +
        'Nobody;Acme;not_found;;;;\n',
    );
  });

  it('neutralises cells a spreadsheet would run as formulas — input, header and record values — unless told not to', () => {
    const plain = { ...shape, delimiter: ',', bom: false, lineEnding: '\n' } as const;
    const record = { value: { id: 'fp1', headline: '=HYPERLINK("http://x.example","hi")' } };
    const rows = [{ fields: ['@SUM(A1:A2)', '+61 2 9999 1234', '-cmd', '-12.5'] }];
    const outcomes = [{ status: 'matched' as const, matchedBy: ['id'], id: 'fp1', record }];
    const guarded = new CsvWriter(['=Name', 'Phone', 'Note', 'Score'], plain, ['headline']);
    expect(guarded.head()).toBe(
      "'=Name,Phone,Note,Score,enrich_status,enrich_matched_by,enrich_id,enrich_problem,headline\n",
    );
    expect(guarded.rows(rows, outcomes)).toBe(
      `'@SUM(A1:A2),+61 2 9999 1234,'-cmd,-12.5,matched,id,fp1,,"'=HYPERLINK(""http://x.example"",""hi"")"\n`,
    );
    const raw = new CsvWriter(['=Name', 'Phone', 'Note', 'Score'], plain, ['headline'], {
      formulaGuard: false,
    });
    expect(raw.head()).toMatch(/^=Name,/);
    expect(raw.rows(rows, outcomes)).toBe(
      '@SUM(A1:A2),+61 2 9999 1234,-cmd,-12.5,matched,id,fp1,,"=HYPERLINK(""http://x.example"",""hi"")"\n',
    );
  });
});
