// Child process: writes a record through the serving index's protocol and is killed (SIGKILL) right after
// its SQLite commit, before the index is updated — a crash at the worst moment.
//   node --import tsx test/store/serving/dying-writer.ts DB RECORD_JSON
import { prepareLine } from '../../../src/ingest/prepare.js';
import type { SqliteRecords } from '../../../src/store/sqlite/records.js';
import { openSqliteStore } from '../../../src/store/sqlite/store.js';
import type { RecordToStore } from '../../../src/store/store.js';

const [path, json] = process.argv.slice(2);
const store = openSqliteStore(path!);
const records = (store as unknown as { records: SqliteRecords }).records;
const record = prepareLine('people', json!) as RecordToStore;
const upsert = records.upsert.bind(records);
// The index's write runs `commit` (the SQLite transaction) inside its own write transaction: die after it.
const index = records.index!;
const write = index.write.bind(index);
index.write = (scope, ids, commit) =>
  write(scope, ids, () => {
    const done = commit();
    process.kill(process.pid, 'SIGKILL');
    return done;
  });
upsert('people', [record]);
