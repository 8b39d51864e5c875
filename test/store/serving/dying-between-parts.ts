// Child process: writes 300 people (p0…p299, e-mails new0…new299@acme.com.au) through the serving index's
// protocol and is killed (SIGKILL) after the first part of the write is in the index, before the rest.
//   node --import tsx test/store/serving/dying-between-parts.ts DB
import { prepareLine } from '../../../src/ingest/prepare.js';
import type { RecordToStore } from '../../../src/store/records.js';
import { IN_PARTS, ServingIndex } from '../../../src/store/serving/serving-index.js';
import { openSqliteStore } from '../../../src/store/sqlite/store.js';

const [path] = process.argv.slice(2);
// Every index large enough for parts; the file is mapped afresh before each part after the first: die there.
IN_PARTS.fromBytes = 0;
const prototype = ServingIndex.prototype as unknown as { remap(): void };
prototype.remap = () => process.kill(process.pid, 'SIGKILL');
const store = openSqliteStore(path!);
const people = Array.from({ length: 300 }, (_, n) =>
  prepareLine(
    'people',
    JSON.stringify({ id: `p${n}`, name: `p${n}`, emails: { work: [{ value: `new${n}@acme.com.au` }] } }),
  ),
);
await store.upsert('people', people as RecordToStore[]);
