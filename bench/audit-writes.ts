// npm run bench:audit: what one audit entry costs the store's writer as the log grows.
// Writes ENTRIES audit entries (default 3,000,000) in batches of 1,000, as the server's audit log does,
// each disclosing one of 100,000 record ids at random, and prints the writer's CPU and wall time per
// entry for every further 500,000. Usage: npm run bench:audit -- [ENTRIES] [postgres://… (a scratch
// database: its audit tables are emptied)]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AuditEntry } from '../src/store/accounting.js';
import { openStore } from '../src/store/open.js';

const [entriesArg = '3000000', databaseUrl] = process.argv.slice(2);
if (!/^[1-9]\d*$/.test(entriesArg) || (databaseUrl !== undefined && !databaseUrl.startsWith('postgres'))) {
  process.stderr.write('usage: npm run bench:audit -- [ENTRIES] [postgres://…]\n');
  process.exit(2);
}
const total = Number(entriesArg);
const BATCH = 1_000;
const REPORT_EVERY = 500_000;
const RECORDS = 100_000;

const dir = mkdtempSync(path.join(tmpdir(), 'enrich-audit-bench-'));
const store = await openStore({ dbPath: path.join(dir, 'enrich.db'), databaseUrl });
if (databaseUrl) {
  const { default: pg } = await import('pg');
  const client = new pg.Client(databaseUrl);
  await client.connect();
  await client.query('TRUNCATE audit_log, audit_match');
  await client.end();
}

const recordIds = Array.from(
  { length: RECORDS },
  (_, i) => `fp${((i * 2_654_435_761) % 2 ** 32).toString(36)}`,
);
const start = Date.UTC(2026, 0, 1);
let written = 0;
let random = 1;
const nextRecord = () => {
  random = (random * 48_271) % 2_147_483_647;
  return recordIds[random % RECORDS]!;
};

process.stdout.write(`${databaseUrl ? 'PostgreSQL' : 'SQLite'}: audit entries, batches of ${BATCH}\n`);
process.stdout.write('entries in log | writer CPU µs/entry | wall µs/entry\n');
while (written < total) {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  const upTo = Math.min(total, written + REPORT_EVERY);
  const count = upTo - written;
  while (written < upTo) {
    const batch: AuditEntry[] = [];
    for (let i = 0; i < BATCH && written < upTo; i++, written++) {
      batch.push({
        at: new Date(start + written).toISOString(),
        key_id: `key${written % 7}`,
        operation: 'people',
        params: ['id'],
        matched: [nextRecord()],
        status: 200,
      });
    }
    await store.addAudit(batch);
  }
  const used = process.cpuUsage(cpu);
  const cpuUs = (used.user + used.system) / count;
  const wallUs = ((performance.now() - wall) * 1000) / count;
  process.stdout.write(
    `${upTo.toLocaleString('en').padStart(14)} | ${cpuUs.toFixed(2).padStart(18)} | ${wallUs.toFixed(2).padStart(13)}\n`,
  );
}
const lookup = performance.now();
const found = await store.audit({ recordId: recordIds[5]! });
process.stdout.write(
  `who looked up one record: ${found.length} entries in ${(performance.now() - lookup).toFixed(1)} ms\n`,
);
await store.close();
rmSync(dir, { recursive: true, force: true });
