// Killing an import part-way leaves every batch wholly in or wholly out, each record with its identifiers.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { linkedinSlug, personId, workEmail, writePeople } from './fixtures.js';

const CHILD = fileURLToPath(new URL('./import-child.ts', import.meta.url));
const PEOPLE = 20_000;
const BATCH = 50;

/** Starts the import in a child process and SIGKILLs it once `killAfter` records are reported in. */
async function importAndKill(db: string, file: string, killAfter: number): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, db, file, String(BATCH)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let reported = 0;
  for await (const line of createInterface({ input: child.stdout })) {
    if (line === 'done') break;
    reported = Number(line);
    if (reported >= killAfter) {
      process.kill(child.pid!, 'SIGKILL');
      break;
    }
  }
  await new Promise((resolve) =>
    child.exitCode !== null || child.signalCode ? resolve(null) : child.once('exit', resolve),
  );
  return reported;
}

describe('an import killed part-way (a bulk load: the store was empty)', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves whole batches, every record present with its identifiers', async () => {
    dir = mkdtempSync(join(tmpdir(), 'enrich-crash-'));
    const file = join(dir, 'people.ndjson');
    const db = join(dir, 'enrich.db');
    writePeople(file, PEOPLE);

    const reported = await importAndKill(db, file, 2_000);
    expect(reported).toBeGreaterThanOrEqual(2_000);

    const store = openSqliteStore(db);
    const count = await store.count('people');
    expect(count).toBeGreaterThanOrEqual(reported);
    expect(count).toBeLessThan(PEOPLE);
    expect(count % BATCH).toBe(0);
    let n = 0;
    for await (const body of store.exportBodies('people')) {
      // The file is in id order, so the records in are exactly the first `count` of it.
      expect(JSON.parse(body).id).toBe(personId(n));
      expect(await store.findIds('people', 'work_email', workEmail(n), 2)).toEqual([personId(n)]);
      expect(await store.findIds('people', 'linkedin', linkedinSlug(n), 2)).toEqual([personId(n)]);
      // The serving index, rebuilt from SQLite by the process that opened the store after the crash.
      const served = await store.findRecords('people', 'work_email', workEmail(n), 2);
      expect(served.map((r) => r.id)).toEqual([personId(n)]);
      n++;
    }
    expect(n).toBe(count);
    await store.close();
  });
});
