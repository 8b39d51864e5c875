// enrich import on a disk that fills: refused up front when the estimate does not fit (unless told to go on),
// and when it fills part-way, told how many records are in and that running it again completes it. On a real
// small filesystem: a tmpfs, mounted when the tests run as root (as CI does).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrich } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-import-space-'));
const disk = join(dir, 'disk');
mkdirSync(disk);
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', disk]).status === 0;
const db = join(disk, 'enrich.db');
/** How many people the store holds, as enrich export counts them. */
const stored = () =>
  Number(/^(\d+) /.exec(enrich(['export', 'people', '--out', '/dev/null', '--db', db]).stderr)?.[1]);

describe.skipIf(!mounted)('enrich import on a disk too small for it', () => {
  const people = join(dir, 'people.ndjson');
  const COUNT = 60_000;

  beforeAll(() => {
    // Small records, quick to import: 6 MB of NDJSON, about 40 MB in the store.
    const lines = Array.from({ length: COUNT }, (_, n) =>
      JSON.stringify({
        id: `fp${String(n).padStart(12, '0')}`,
        name: `Person ${n}`,
        linkedin: `https://www.linkedin.com/in/person-${n}`,
      }),
    );
    writeFileSync(people, `${lines.join('\n')}\n`);
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
    expect(committed).toBeLessThan(COUNT);

    expect(spawnSync('mount', ['-o', 'remount,size=512m', disk]).status).toBe(0);
    expect(stored()).toBe(committed);
    const again = enrich(['import', 'people', people, '--db', db]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/60000 people imported/);
    expect(stored()).toBe(COUNT);
  }, 120_000);
});
