// The list `npm run bench:match` matches: rows drawn from the generated people, most of them findable.

import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { stringify } from 'csv-stringify/sync';

/** How the rows are made, by row number modulo 10: what the report says the list holds. */
export const LIST_MIX =
  '7 in 10 by an e-mail on file, 1 by a LinkedIn URL on file, 2 by identifiers on file nowhere';

interface Person {
  name?: string | null;
  linkedin?: string | null;
  current_company?: { name?: string | null } | null;
  emails?: { work?: Array<{ value?: string }>; personal?: Array<{ value?: string }> } | null;
}

/** One list row for the i-th row, drawn from a person: [Full Name, Email, LinkedIn URL, Company]. */
function leadRow(person: Person, i: number): string[] {
  const email = person.emails?.work?.[0]?.value ?? person.emails?.personal?.[0]?.value ?? '';
  const kind = i % 10;
  const row = [person.name ?? '', '', '', person.current_company?.name ?? ''];
  if (kind < 7) row[1] = email;
  else if (kind === 7) row[2] = person.linkedin ?? '';
  else if (kind === 8) row[1] = `nobody.${i}@nowhere-${i % 997}.example.com`;
  else row[2] = `https://www.linkedin.com/in/nobody-${i}`;
  return row;
}

async function put(out: Writable, text: string) {
  if (!out.write(text)) await once(out, 'drain');
}

/** Writes a CSV list of `rows` rows to `file` from the people NDJSON file (gzip when named .gz), going round it as needed. */
export async function writeLeadList(peopleFile: string, rows: number, file: string): Promise<void> {
  const out = createWriteStream(file);
  await put(out, stringify([['Full Name', 'Email', 'LinkedIn URL', 'Company']]));
  let written = 0;
  while (written < rows) {
    const before = written;
    const lines = createInterface({
      input: peopleFile.endsWith('.gz')
        ? createReadStream(peopleFile).pipe(createGunzip())
        : createReadStream(peopleFile),
      crlfDelay: Infinity,
    });
    let batch: string[][] = [];
    for await (const line of lines) {
      batch.push(leadRow(JSON.parse(line) as Person, written++));
      if (batch.length === 1000 || written === rows) {
        await put(out, stringify(batch));
        batch = [];
      }
      if (written === rows) break;
    }
    lines.close();
    if (written === before) throw new Error(`${peopleFile} holds no people to draw a list from`);
  }
  out.end();
  await once(out, 'finish');
}
