// Child process: writes a record through the serving index's protocol and, between its SQLite commit and the
// index update, holds the index's write lock (as a refresh's transaction does while it applies its changes)
// until the file RELEASE exists, or 20 s have passed. It creates HELD once it holds, and ENDED as it lets go.
//   node --import tsx test/store/serving/held-writer.ts DB RECORD_JSON DIR
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareLine } from '../../../src/ingest/prepare.js';
import type { RecordToStore } from '../../../src/store/records.js';
import { ServingIndex } from '../../../src/store/serving/serving-index.js';
import { openSqliteStore } from '../../../src/store/sqlite/store.js';

const [path, json, dir] = process.argv.slice(2);
const pause = new Int32Array(new SharedArrayBuffer(4));
const write = ServingIndex.prototype.write;
ServingIndex.prototype.write = function (this: ServingIndex, scope, ids, commit) {
  return write.call(this, scope, ids, () => {
    const done = commit();
    writeFileSync(join(dir!, 'HELD'), '');
    const until = Date.now() + 20_000;
    while (!existsSync(join(dir!, 'RELEASE')) && Date.now() < until) Atomics.wait(pause, 0, 0, 10);
    writeFileSync(join(dir!, 'ENDED'), '');
    return done;
  });
} as ServingIndex['write'];
const store = openSqliteStore(path!);
await store.upsert('people', [prepareLine('people', json!) as RecordToStore]);
await store.close();
