import { describe, expect, it } from 'vitest';
import type { ListRow } from '../../../src/ingest/match/list.js';
import { openNdjsonReader } from '../../../src/ingest/match/ndjson-reader.js';
import { NdjsonWriter } from '../../../src/ingest/match/ndjson-writer.js';

async function readAll(text: string, chunk = 5) {
  async function* chunks() {
    for (let at = 0; at < text.length; at += chunk) yield Buffer.from(text.slice(at, at + chunk));
  }
  const reader = await openNdjsonReader(chunks());
  const rows: ListRow[] = [];
  for await (const batch of reader.batches()) rows.push(...batch);
  return { columns: reader.columns, rows };
}

describe('reading an NDJSON list', () => {
  it('takes its columns from the objects first read, and keeps each line that holds no object in its place', async () => {
    const text = '\ufeffnot json\n{"email":"a@b.au","n":1.50}\r\n\n[1]\n{"ln":"x"}\n';
    expect((await readAll(text, 1000)).columns).toEqual(['email', 'n', 'ln']);
    const read = await readAll(text);
    expect(read.columns).toEqual(['email', 'n']);
    expect(read.rows).toEqual([
      { text: 'not json', malformed: { line: 1, reason: 'not valid JSON' } },
      { text: '{"email":"a@b.au","n":1.50}', object: { email: 'a@b.au', n: 1.5 } },
      { text: '[1]', malformed: { line: 4, reason: 'not a JSON object' } },
      { text: '{"ln":"x"}', object: { ln: 'x' } },
    ]);
  });

  it('refuses a list in which no line holds an object', async () => {
    await expect(readAll('1\n"x"\n')).rejects.toThrow('no line of the list holds a JSON object');
  });
});

describe('writing a matched NDJSON list', () => {
  const writer = new NdjsonWriter((record) =>
    'value' in record ? JSON.stringify(record.value) : String(record.json),
  );

  it('adds the match to each object after its own members, which stay byte for byte', () => {
    const rows: ListRow[] = [
      { text: '{"email":"a@b.au","n":1.50} ', object: { email: 'a@b.au', n: 1.5 } },
      { text: '{ }', object: {} },
    ];
    const text = writer.rows(rows, [
      { status: 'matched', matchedBy: ['work_email'], id: 'fp1', record: { json: '{"id":"fp1"}' } },
      { status: 'invalid' },
    ]);
    expect(text).toBe(
      '{"email":"a@b.au","n":1.50,"enrich_status":"matched","enrich_matched_by":["work_email"],"enrich_id":"fp1","enrich_problem":null,"enrich_record":{"id":"fp1"}}\n' +
        '{ "enrich_status":"invalid","enrich_matched_by":null,"enrich_id":null,"enrich_problem":null,"enrich_record":null}\n',
    );
  });

  it('replaces the members of an earlier match in place, and keeps a line without an object as a string', () => {
    const earlier = { email: 'a@b.au', enrich_status: 'not_found', enrich_id: null, x: 1 };
    const text = writer.rows(
      [
        { text: JSON.stringify(earlier), object: earlier },
        { text: 'oops', malformed: { line: 2, reason: 'x' } },
      ],
      [
        { status: 'matched', matchedBy: ['work_email'], id: 'fp1', record: { value: { id: 'fp1' } } },
        { status: 'invalid' },
      ],
    );
    expect(text.split('\n').map((line) => (line ? JSON.parse(line) : line))).toEqual([
      {
        email: 'a@b.au',
        enrich_status: 'matched',
        enrich_id: 'fp1',
        x: 1,
        enrich_matched_by: ['work_email'],
        enrich_problem: null,
        enrich_record: { id: 'fp1' },
      },
      {
        enrich_status: 'invalid',
        enrich_matched_by: null,
        enrich_id: null,
        enrich_problem: 'x',
        enrich_record: null,
        enrich_input: 'oops',
      },
      '',
    ]);
    expect(Object.keys(JSON.parse(text.split('\n')[0]!))).toEqual([
      'email',
      'enrich_status',
      'enrich_id',
      'x',
      'enrich_matched_by',
      'enrich_problem',
      'enrich_record',
    ]);
  });

  it('adds to a list of people how likely a match by name is, and to every row why it was not matched', () => {
    const people = new NdjsonWriter(
      (record) => ('value' in record ? JSON.stringify(record.value) : ''),
      true,
    );
    const rows: ListRow[] = [
      { text: '{"name":"Jane Citizen","company":"Acme"}', object: { name: 'Jane Citizen', company: 'Acme' } },
      { text: '{"work_email":"x@"}', object: { work_email: 'x@' } },
    ];
    const text = people.rows(rows, [
      {
        status: 'matched',
        matchedBy: ['name', 'company_name'],
        id: 'fp1',
        likelihood: 8,
        record: { value: { id: 'fp1' } },
      },
      { status: 'invalid', problem: 'work_email is not an e-mail address.' },
    ]);
    expect(
      text
        .split('\n')
        .slice(0, 2)
        .map((line) => JSON.parse(line)),
    ).toEqual([
      {
        name: 'Jane Citizen',
        company: 'Acme',
        enrich_status: 'matched',
        enrich_matched_by: ['name', 'company_name'],
        enrich_id: 'fp1',
        enrich_likelihood: 8,
        enrich_problem: null,
        enrich_record: { id: 'fp1' },
      },
      {
        work_email: 'x@',
        enrich_status: 'invalid',
        enrich_matched_by: null,
        enrich_id: null,
        enrich_likelihood: null,
        enrich_problem: 'work_email is not an e-mail address.',
        enrich_record: null,
      },
    ]);
  });
});
