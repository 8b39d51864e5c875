// npm run bench:audit: what one audit entry costs the store's writer as the log grows, and the bytes it takes.
// Writes ENTRIES audit entries (default 3,000,000) in batches of BATCH (default 1,000; a server's fold writes
// what 200 ms of lookups journalled, so 10 at 50 lookups/s), each disclosing one of 100,000 record ids at
// random, and prints the writer's CPU and wall time per entry for every further 500,000, then the bytes the
// audit tables and their indexes hold per entry. With --journal each batch is a run of accounting-journal
// lines folded as a server's folder folds them (parsed, then audit, usage and quota in one transaction).
// Usage: npm run bench:audit -- [ENTRIES] [--batch N] [--journal]
// [postgres://… (a scratch database: its audit tables are emptied)]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LookupRecord } from '../src/accounting/accounting.js';
import { foldLines, journalLine } from '../src/accounting/journal-format.js';
import type { AuditEntry } from '../src/store/accounting.js';
import { openStore } from '../src/store/open.js';
import { sqliteAuditStorage } from './audit-storage.js';

const args = process.argv.slice(2);
const journalAt = args.indexOf('--journal');
const viaJournal = journalAt >= 0;
if (viaJournal) args.splice(journalAt, 1);
const batchAt = args.indexOf('--batch');
const batchArg = batchAt >= 0 ? args.splice(batchAt, 2)[1] : '1000';
const [entriesArg = '3000000', databaseUrl] = args;
if (
  !/^[1-9]\d*$/.test(entriesArg) ||
  !/^[1-9]\d*$/.test(batchArg ?? '') ||
  (databaseUrl !== undefined && !databaseUrl.startsWith('postgres'))
) {
  process.stderr.write('usage: npm run bench:audit -- [ENTRIES] [--batch N] [--journal] [postgres://…]\n');
  process.exit(2);
}
const total = Number(entriesArg);
const BATCH = Number(batchArg);
const REPORT_EVERY = 500_000;
const RECORDS = 100_000;

const dir = mkdtempSync(path.join(tmpdir(), 'enrich-audit-bench-'));
const store = await openStore({ dbPath: path.join(dir, 'enrich.db'), databaseUrl });
if (databaseUrl) {
  const { default: pg } = await import('pg');
  const client = new pg.Client(databaseUrl);
  await client.connect();
  await client.query(`TRUNCATE ${(await auditTables(client)).join(', ')}`);
  await client.end();
}

const recordIds = Array.from(
  { length: RECORDS },
  (_, i) => `fp${900_000_000_000 + ((i * 2_654_435_761) % 2 ** 32)}`,
);
const start = Date.UTC(2026, 0, 1);
let written = 0;
let random = 1;
const nextRecord = () => {
  random = (random * 48_271) % 2_147_483_647;
  return recordIds[random % RECORDS]!;
};

const lookup = (n: number): LookupRecord => ({
  at: start + n,
  keyId: `key_7GdK2mQx9${n % 7}`,
  operation: 'people',
  params: ['id'],
  matched: [nextRecord()],
  status: 200,
});
/** Where the journal mode's run ends in its (notional) journal segment. */
let journalOffset = 0;
/** A batch made ready to write (entries, or journal text), then the write itself: only the write is timed. */
const ready = (batch: LookupRecord[]) => {
  if (viaJournal) {
    const text = batch.map(journalLine).join('');
    return () => {
      const from = journalOffset;
      journalOffset += Buffer.byteLength(text);
      return store.foldJournal('bench', from, journalOffset, foldLines(text));
    };
  }
  const entries: AuditEntry[] = batch.map(({ at, keyId, operation, params, matched, status }) => ({
    at: new Date(at).toISOString(),
    key_id: keyId,
    operation,
    params,
    matched,
    status,
  }));
  return () => store.addAudit(entries);
};

process.stdout.write(
  `${databaseUrl ? 'PostgreSQL' : 'SQLite'}: audit entries, batches of ${BATCH}` +
    `${viaJournal ? ', folded from journal lines' : ''}\n`,
);
process.stdout.write('entries in log | writer CPU µs/entry | wall µs/entry\n');
while (written < total) {
  const upTo = Math.min(total, written + REPORT_EVERY);
  const count = upTo - written;
  let cpuUs = 0;
  let wallUs = 0;
  while (written < upTo) {
    const batch: LookupRecord[] = [];
    for (; batch.length < BATCH && written < upTo; written++) batch.push(lookup(written));
    const write = ready(batch);
    const cpu = process.cpuUsage();
    const wall = performance.now();
    await write();
    const used = process.cpuUsage(cpu);
    cpuUs += used.user + used.system;
    wallUs += (performance.now() - wall) * 1000;
  }
  cpuUs /= count;
  wallUs /= count;
  process.stdout.write(
    `${upTo.toLocaleString('en').padStart(14)} | ${cpuUs.toFixed(2).padStart(18)} | ${wallUs.toFixed(2).padStart(13)}\n`,
  );
}
// Who looked up a record, for 20 records: the first query's time (cold) and the median of the others.
const queryTimes: number[] = [];
let foundEntries = 0;
for (let i = 0; i < 20; i++) {
  const lookup = performance.now();
  foundEntries += (await store.audit({ recordId: recordIds[i * 4_999]! })).length;
  queryTimes.push(performance.now() - lookup);
}
const warm = queryTimes.slice(1).sort((a, b) => a - b);
process.stdout.write(
  `who looked up a record: ${(foundEntries / 20).toFixed(1)} entries on average; first query ` +
    `${queryTimes[0]!.toFixed(1)} ms, median of the next 19 ${warm[9]!.toFixed(1)} ms\n`,
);
await store.close();
const bytes = databaseUrl ? await postgresBytes(databaseUrl) : sqliteBytes(path.join(dir, 'enrich.db'));
process.stdout.write(
  `audit tables and indexes: ${(bytes / 1e6).toFixed(1)} MB, ${(bytes / total).toFixed(1)} bytes per entry\n`,
);
rmSync(dir, { recursive: true, force: true });

/** The pages of every audit table and index, each shown per entry. */
function sqliteBytes(file: string): number {
  const storage = sqliteAuditStorage(file);
  for (const [name, bytes] of storage.byName) {
    process.stdout.write(`  ${name}: ${(bytes / total).toFixed(1)} bytes per entry\n`);
  }
  return storage.bytes;
}

async function postgresBytes(url: string): Promise<number> {
  const { default: pg } = await import('pg');
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; bytes: string }>({
      text: `SELECT relname AS name, pg_total_relation_size(oid)::text AS bytes FROM pg_class
             WHERE relkind = 'r' AND relname = ANY($1)`,
      values: [await auditTables(client)],
    });
    for (const { name, bytes } of rows) {
      process.stdout.write(
        `  ${name} and its indexes: ${(Number(bytes) / total).toFixed(1)} bytes per entry\n`,
      );
    }
    return rows.reduce((sum, row) => sum + Number(row.bytes), 0);
  } finally {
    await client.end();
  }
}

/** The audit log's tables in the public schema (their names changed with the segments). */
async function auditTables(client: import('pg').Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    "SELECT relname AS name FROM pg_class WHERE relkind = 'r' AND relname LIKE 'audit%' AND relnamespace = 'public'::regnamespace",
  );
  return rows.map((row) => row.name);
}
