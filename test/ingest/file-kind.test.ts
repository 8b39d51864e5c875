import { describe, expect, it } from 'vitest';
import { fileKind } from '../../src/ingest/file-kind.js';

const kind = (text: string | Buffer) => fileKind(Buffer.isBuffer(text) ? text : Buffer.from(text));

describe('fileKind', () => {
  it.each([
    ['NDJSON', '{"id":"fp1"}\n{"id":"fp2"}\n', { kind: 'ndjson' }],
    ['NDJSON after a byte order mark and blank lines', '\ufeff\n\n  {"id":"fp1"}\n', { kind: 'ndjson' }],
    ['an empty file', '', { kind: 'empty' }],
    ['a blank file', ' \n\r\n', { kind: 'empty' }],
    ['a JSON array on one line', '[{"id":"fp1"}]', { kind: 'json-array' }],
    ['a pretty-printed JSON array', '[\n  {\n    "id": "fp1"\n  }\n]\n', { kind: 'json-array' }],
    ['a CSV', 'Name,Email\nJane,jane@acme.com.au\n', { kind: 'csv', header: 'Name,Email' }],
    ['a CSV with a BOM and semicolons', '\ufeffName;Email\r\n', { kind: 'csv', header: 'Name;Email' }],
    ['a CSV of tabs', 'Name\tEmail\n', { kind: 'csv', header: 'Name\tEmail' }],
    ['a quoted CSV header', '"Name","E-mail, work"\n', { kind: 'csv', header: '"Name","E-mail, work"' }],
    ['plain text', 'Jane Citizen\nJosé García\n', { kind: 'text' }],
  ])('tells %s', (_what, text, expected) => {
    expect(kind(text)).toEqual(expected);
  });

  it('cuts a long CSV header to a readable length', () => {
    const header = Array.from({ length: 40 }, (_, n) => `Column ${n}`).join(',');
    const found = kind(`${header}\n`);
    expect(found).toMatchObject({ kind: 'csv' });
    expect((found as { header: string }).header).toHaveLength(78);
  });

  it.each([
    ['a NUL byte', Buffer.from('{"id":"fp1"}\u0000\n'), undefined],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0xc3, 0x28, 0x7d, 0x0a]), undefined],
    ['terminal control characters', Buffer.from('\u001b[2J\u001b[H\u0007\u0007 hello'), undefined],
    ['a ZIP archive', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14]), 'a ZIP archive (an Excel workbook?)'],
    ['UTF-16 text', Buffer.from('\ufeffName', 'utf16le'), 'UTF-16 text (save it as UTF-8)'],
    ['an SQLite file', Buffer.from('SQLite format 3\u0000'), expect.stringMatching(/^an SQLite database/)],
  ])('tells binary data by %s', (_what, bytes, what) => {
    expect(kind(bytes)).toEqual({ kind: 'binary', what });
  });

  it('is not fooled by a multi-byte character cut at the end of what it reads', () => {
    const text = Buffer.from('{"name":"José"}\n');
    expect(kind(text.subarray(0, text.indexOf('é') + 1))).toEqual({ kind: 'ndjson' });
  });
});
