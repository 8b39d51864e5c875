// Child process for the concurrency test: another process writing to the store (quota counts) in a loop.
//   node --import tsx test/store/sqlite/writer-child.ts DB
import { openSqliteStore } from '../../../src/store/sqlite/store.js';

const store = openSqliteStore(process.argv[2]!);
process.stdout.write('ready\n');
for (;;) {
  await store.addQuotaUse('2025-01', new Map([['key', 1]]));
  await new Promise((resolve) => setImmediate(resolve));
}
