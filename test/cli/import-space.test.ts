// enrich import on a disk that fills: refused up front when the estimate does not fit (unless told to go on),
// and when it fills part-way, told how many records are in and that running it again completes it. On a real
// small filesystem: a tmpfs, mounted when the tests run as root (as CI does).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrich } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-import-space-'));
const disk = join(dir, 'disk');
const data = join(dir, 'data');
spawnSync('mkdir', [disk]);
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', disk]).status === 0;
const db = join(disk, 'enrich.db');
/** How many people the store holds, as enrich export counts them. */
const stored = () =>
  Number(/^(\d+) /.exec(enrich(['export', 'people', '--out', '/dev/null', '--db', db]).stderr)?.[1]);

describe.skipIf(!mounted)('enrich import on a disk too small for it', () => {
  const people = join(data, 'people.ndjson');

  beforeAll(() => {
    // 12,000 people: 24 MB of NDJSON, about 100 MB in the store.
    expect(enrich(['generate', '--companies', '100', '--people', '12000', '--out', data]).status).toBe(0);
  });

  afterAll(() => {
    spawnSync('umount', [disk]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses before starting when the estimate is more than the free space, saying how to go on', () => {
    const run = enrich(['import', 'people', people, '--db', db]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^enrich: the import may need about [\d.]+ MB beside .*enrich\.db \([\d.]+ MB of NDJSON, about 4 times that in the store\); [\d.]+ MB are free\. Free some space, or give --no-space-check to import anyway/,
    );
    expect(run.stdout).toBe('');
  });

  it('says, when the disk fills part-way, how many records are in and that running it again completes it', () => {
    const run = enrich(['import', 'people', people, '--no-space-check', '--db', db]);
    expect(run.status).toBe(1);
    const said =
      /^enrich: .*people\.ndjson: the disk is full \(.+\); (\d+) records of it were committed before the failure\. Free some space and run the same import again to complete it \(records already in are updated, not duplicated\)$/m.exec(
        run.stderr,
      );
    expect(said, run.stderr).not.toBeNull();
    const committed = Number(said![1]);
    expect(committed).toBeGreaterThanOrEqual(5000);
    expect(committed).toBeLessThan(12_000);

    expect(spawnSync('mount', ['-o', 'remount,size=512m', disk]).status).toBe(0);
    expect(stored()).toBe(committed);
    const again = enrich(['import', 'people', people, '--db', db]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/12000 people imported/);
    expect(stored()).toBe(12_000);
  }, 180_000);
});
