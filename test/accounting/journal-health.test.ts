import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalWriter } from '../../src/accounting/journal.js';
import { JournalAccounting } from '../../src/accounting/journal-accounting.js';
import { JournalHealth, probeDirectory } from '../../src/accounting/journal-health.js';

const full = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

function watched(probe: () => void = () => {}) {
  const lines: Array<[string, string]> = [];
  let clock = 1_000_000;
  const health = new JournalHealth({
    log: {
      error: (_obj, msg) => lines.push(['error', msg]),
      info: (_obj, msg) => lines.push(['info', msg]),
    },
    probe,
    probeEveryMs: 60_000,
    now: () => clock,
  });
  return { health, lines, advance: (ms: number) => (clock += ms) };
}

describe('the health of the accounting journal', () => {
  it('logs a failure once when it starts and once when it ends, however many commits fail between', () => {
    const { health, lines, advance } = watched();
    for (let i = 0; i < 2933; i++) health.failed(full(), 1);
    expect(health.failing).toBe(true);
    expect(health.problem).toBe('no space left on device (ENOSPC)');
    advance(12_300);
    health.succeeded();
    health.succeeded();
    expect(lines).toEqual([
      [
        'error',
        'accounting journal cannot be written: no space left on device (ENOSPC); keyed requests are answered 503 until it can',
      ],
      [
        'info',
        'accounting journal writable again after 12.3 s; 2933 lookup records could not be kept meanwhile, and their requests were answered 503',
      ],
    ]);
    expect(health.failing).toBe(false);
    expect(health.failures).toBe(2933);
    health.close();
  });

  it('says nothing while the journal is written', () => {
    const { health, lines } = watched();
    health.succeeded();
    expect(lines).toEqual([]);
    expect(health.problem).toBeUndefined();
  });

  it('ends a failure when its probe finds room, without waiting for a request', () => {
    let room = false;
    const { health, lines } = watched(() => {
      if (!room) throw full();
    });
    health.failed(full(), 3);
    health.probe();
    expect(health.failing).toBe(true);
    room = true;
    health.probe();
    expect(health.failing).toBe(false);
    expect(lines.map(([level]) => level)).toEqual(['error', 'info']);
  });

  it('probes a directory with a file it removes again', () => {
    const dir = mkdtempSync(join(tmpdir(), 'enrich-probe-'));
    probeDirectory(dir)();
    expect(readdirSync(dir)).toEqual([]);
    expect(() => probeDirectory(join(dir, 'missing'))()).toThrow(/ENOENT/);
  });
});

describe('journal accounting', () => {
  it('tells its health of each commit that failed, with the records it dropped, and of the next that worked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'enrich-journal-health-'));
    const writer = new JournalWriter(dir);
    let failing = true;
    const commit = writer.commit.bind(writer);
    writer.commit = () => {
      if (!failing) return commit();
      Reflect.set(writer, 'pending', []); // as the writer does: a commit that failed drops its lines
      throw full();
    };
    const { health, lines } = watched();
    const foldedAt = Date.now() - 2500; // fixed: the lag read later is at least 2.5 s, whatever the clock ticks
    const folds = { foldNow: async () => 0, close: async () => 0, foldedUpTo: () => foldedAt };
    const accounting = new JournalAccounting(writer, folds, () => {}, health);
    const record = {
      at: 0,
      keyId: 'key_a',
      operation: 'people' as const,
      params: [],
      matched: [],
      status: 200,
    };
    accounting.append(record);
    accounting.append(record);
    expect(() => accounting.commit()).toThrow(/ENOSPC/);
    expect(health.failing).toBe(true);
    failing = false;
    accounting.commit(); // nothing waits: proves nothing
    expect(health.failing).toBe(true);
    accounting.append(record);
    accounting.commit();
    expect(health.failing).toBe(false);
    expect(lines[1]![1]).toMatch(/2 lookup records could not be kept/);
    expect(accounting.foldLagSeconds()).toBeGreaterThanOrEqual(2.5);
    await accounting.close();
  });
});
