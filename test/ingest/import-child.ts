// Child process for the crash test: imports a file, printing how many records are in after each batch.
//   node --import tsx test/ingest/import-child.ts DB FILE BATCH_SIZE
import { importFile } from '../../src/ingest/import.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';

const [db, file, batchSize] = process.argv.slice(2);
const store = openSqliteStore(db!);
let imported = 0;
await importFile(store, 'people', file!, {
  batchSize: Number(batchSize),
  onProgress: () => {
    imported += Number(batchSize);
    process.stdout.write(`${imported}\n`);
  },
});
await store.close();
process.stdout.write('done\n');
