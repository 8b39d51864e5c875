// enrich evolve, run as a user runs it: generate, evolve, and the result imports into a store without a rejected line.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { enrich } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-evolve-cli-'));
const start = join(dir, 'start');
const next = join(dir, 'next');

describe('enrich evolve', () => {
  beforeAll(() => {
    const args = ['generate', '--companies', '300', '--people', '3000', '--seed', '4', '--out', start];
    expect(enrich(args).status).toBe(0);
  });

  it('writes the next snapshot and its expected changes, and says what changed', () => {
    const run = enrich(['evolve', '--in', start, '--out', next, '--seed', '3', '--months', '2']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `^${start} evolved 2 months to 2025-08 in ${next}: 300 → \\d+ companies \\(\\d+ created, \\d+ updated, \\d+ removed\\), ` +
          '3000 → \\d+ people \\(\\d+ created, \\d+ updated, \\d+ removed\\); \\d+ job changes, \\d+ title changes; ' +
          `\\d+ expected events in ${join(next, 'expected-changes.ndjson')} in [\\d.]+ s\\n$`,
      ),
    );
    const lines = readFileSync(join(next, 'expected-changes.ndjson'), 'utf8').trim().split('\n');
    const events = Number(/(\d+) expected events/.exec(run.stdout)![1]);
    expect(lines).toHaveLength(events);
    expect(events).toBeGreaterThan(50);
    for (const line of lines) expect(Object.keys(JSON.parse(line))).toEqual(['type', 'data']);
  });

  it('writes records enrich import takes, every one of them', () => {
    const db = join(dir, 'enrich.db');
    for (const set of [start, next]) {
      for (const entity of ['companies', 'people']) {
        const run = enrich(['import', entity, join(set, `${entity}.ndjson`), '--db', db]);
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
        expect(run.stdout).toMatch(/, 0 rejected of \d+ lines/);
      }
    }
  });

  it('refuses a missing data set, or an output directory that is the input', () => {
    const missing = enrich(['evolve', '--in', join(dir, 'nowhere'), '--out', join(dir, 'x')]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(
      /^enrich: .*nowhere holds neither companies.ndjson nor companies.ndjson.gz\n$/,
    );
    const same = enrich(['evolve', '--in', start, '--out', `${start}/`]);
    expect(same.status).toBe(1);
    expect(same.stderr).toMatch(/must not be the input directory/);
    const months = enrich(['evolve', '--in', start, '--out', join(dir, 'x'), '--months', '0']);
    expect(months.status).toBe(1);
    expect(months.stderr).toMatch(/'--months <n>' argument '0' is invalid/);
  });
});
