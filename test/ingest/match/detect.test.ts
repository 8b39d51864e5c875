import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DELIMITERS, detectDelimiter, detectShape } from '../../../src/ingest/match/detect.js';
import { ListError } from '../../../src/ingest/match/list.js';

/** A header name that holds no delimiter, quote or line break of its own. */
const plainName = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !/[,;\t"\r\n]/.test(s));

/** A header name quoted CSV-style, free to hold any delimiter or an escaped quote. */
const quotedName = fc
  .string({ minLength: 0, maxLength: 12 })
  .filter((s) => !/[\r\n]/.test(s))
  .map((s) => `"${s.replaceAll('"', '""')}"`);

describe('detecting the delimiter of a header line', () => {
  it('finds the delimiter that separates two or more names, whatever the quoted names hold', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...DELIMITERS),
        fc.array(fc.oneof(plainName, quotedName), { minLength: 2, maxLength: 8 }),
        (delimiter, names) => {
          expect(detectDelimiter(names.join(delimiter))).toBe(delimiter);
        },
      ),
    );
  });

  it('falls back to a comma for a one-column header', () => {
    fc.assert(
      fc.property(plainName, (name) => {
        expect(detectDelimiter(name)).toBe(',');
      }),
    );
  });

  it('reads the header rows spreadsheets write in Europe and as tab-separated text', () => {
    expect(detectDelimiter('Name;E-Mail;Firma, Ort')).toBe(';');
    expect(detectDelimiter('Name\tWork Email\tCompany, Inc')).toBe('\t');
    expect(detectDelimiter('"Smith; Jones",Email,Website')).toBe(',');
  });
});

describe('detecting what a list is from its first line', () => {
  it('tells NDJSON from CSV by an opening brace', () => {
    expect(detectShape('{"email":"a@b.co"}').format).toBe('ndjson');
    expect(detectShape('  {"email":"a@b.co"}').format).toBe('ndjson');
    expect(detectShape('email,name').format).toBe('csv');
  });

  it('notes a byte order mark and a CRLF line ending, and detects past the mark', () => {
    expect(detectShape('\ufeffName;Email\r')).toEqual({
      format: 'csv',
      delimiter: ';',
      lineEnding: '\r\n',
      bom: true,
    });
    expect(detectShape('Name,Email')).toEqual({
      format: 'csv',
      delimiter: ',',
      lineEnding: '\n',
      bom: false,
    });
    expect(detectShape('\ufeff{"a":1}').format).toBe('ndjson');
  });

  it('refuses an empty list and a JSON array, saying why', () => {
    expect(() => detectShape('')).toThrow(ListError);
    expect(() => detectShape('\ufeff  \r')).toThrow(/empty/);
    expect(() => detectShape('[{"email":"a@b.co"}]')).toThrow(/NDJSON/);
  });
});
