// A full disk under the accounting journal, on a real small filesystem (a tmpfs, mounted when the tests run as
// root, as CI does): keyed requests get 503 and nothing is lost, the condition is logged once when it starts
// and once when it ends, and /readyz and /metrics show it meanwhile.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from '../helpers/app.js';

const mountpoint = mkdtempSync(join(tmpdir(), 'enrich-full-disk-'));
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountpoint]).status === 0;

/** Writes a file until the filesystem has no room left. */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(!mounted)('a full disk under the accounting journal', () => {
  let t: TestApp;
  const logged: Array<{ level: number; msg: string }> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) logged.push(JSON.parse(line));
      done();
    },
  });
  const lookup = () => t.app.inject({ url: '/people?id=fp000000000001', headers: { authorization: t.auth } });

  beforeAll(async () => {
    t = await testApp('sqlite', {
      journal: { dir: join(mountpoint, 'journal') },
      logger: { level: 'info', stream },
    });
  });

  afterAll(async () => {
    await t?.close();
    spawnSync('umount', [mountpoint]);
    rmSync(mountpoint, { recursive: true, force: true });
  });

  it('answers 503, logs it once, shows it in /readyz and /metrics, and recovers with nothing lost', async () => {
    // Filled before the first write: a block the journal already holds would take a few more lines.
    fill(join(mountpoint, 'filler'));
    const refused = await Promise.all(Array.from({ length: 40 }, lookup));
    expect(refused.map((r) => r.statusCode)).toEqual(Array(40).fill(503));

    const errors = logged.filter((line) => line.level >= 50);
    expect(errors.map((line) => line.msg)).toEqual([
      'accounting journal cannot be written: no space left on device (ENOSPC); keyed requests are answered 503 until it can',
    ]);
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().detail).toBe(
      'The accounting journal cannot be written (no space left on device (ENOSPC)): keyed requests are refused until it can.',
    );
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/^enrich_accounting_journal_failing 1$/m);
    expect(metrics).toMatch(/^enrich_ready 0$/m);
    expect(metrics).toMatch(/^enrich_accounting_journal_write_failures_total [1-9]\d*$/m);

    rmSync(join(mountpoint, 'filler'));
    // No request comes while it is unready: the probe finds the room.
    for (let i = 0; i < 50 && (await t.app.inject({ url: '/readyz' })).statusCode !== 200; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    const recovered = logged.filter((line) => /writable again/.test(line.msg));
    expect(recovered).toHaveLength(1);
    expect(recovered[0]!.msg).toMatch(/; 40 lookup records could not be kept meanwhile/);
    expect((await t.app.inject({ url: '/metrics' })).body).toMatch(/^enrich_accounting_journal_failing 0$/m);

    const served = await Promise.all(Array.from({ length: 5 }, lookup));
    expect(served.map((r) => r.statusCode)).toEqual(Array(5).fill(200));
    await t.app.inject({ url: '/v1/usage', headers: { authorization: t.auth } });
    const usage = await t.store.usage({ keyId: t.keyId, since: '2000-01-01' });
    // Every 200 counted, none of the refused.
    expect(usage.reduce((sum, row) => sum + row.matched, 0)).toBe(5);
    expect(usage.reduce((sum, row) => sum + row.requests, 0)).toBe(5);
    expect(logged.filter((line) => line.level >= 50)).toHaveLength(1);
  });
});
