// A second process on a local index directory (a cluster's other worker): prints its follower's phase once
// its index is in service, then the lookup by work e-mail it answers from the index once it finds the
// record argv[4] names, or `missing` after two seconds.
import { openPostgresStore } from '../../../src/store/postgres/store.js';

const [url, dir, email] = process.argv.slice(2) as [string, string, string];
const store = await openPostgresStore({ url, poolSize: 2, localDir: dir });
store.logLocalTo({ info: () => {}, warn: () => {} });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
while (!store.localStatus()?.serving) await sleep(5);
process.stdout.write(`${JSON.stringify({ phase: store.localStatus()?.phase })}\n`);
let found = 'missing';
for (const deadline = Date.now() + 2_000; Date.now() < deadline; await sleep(5)) {
  const answer = store.findRecords('people', 'work_email', email, 10);
  if (!(answer instanceof Promise) && answer.length > 0) {
    found = answer[0]!.id;
    break;
  }
}
process.stdout.write(`${JSON.stringify({ found })}\n`);
await store.close();
