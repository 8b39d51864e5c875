// Child process: writes a record through the serving index's protocol and is killed (SIGKILL) right after
// its SQLite commit, before the index is updated — a crash at the worst moment.
//   node --import tsx test/store/serving/dying-writer.ts DB RECORD_JSON
import { prepareLine } from '../../../src/ingest/prepare.js';
import type { RecordToStore } from '../../../src/store/records.js';
import { ServingIndex } from '../../../src/store/serving/serving-index.js';
import { openSqliteStore } from '../../../src/store/sqlite/store.js';

const [path, json] = process.argv.slice(2);
// The index's write runs `commit` (the SQLite transaction) inside its own write transaction: die after it.
const write = ServingIndex.prototype.write;
ServingIndex.prototype.write = function (this: ServingIndex, scope, ids, commit) {
  return write.call(this, scope, ids, () => {
    const done = commit();
    process.kill(process.pid, 'SIGKILL');
    return done;
  });
} as ServingIndex['write'];
const store = openSqliteStore(path!);
const record = prepareLine('people', json!) as RecordToStore;
await store.upsert('people', [record]);
