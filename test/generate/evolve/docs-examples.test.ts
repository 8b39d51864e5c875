// docs/changes.md shows real output: every event it quotes is one that the documented commands produce.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evolveDataset } from '../../../src/generate/evolve/index.js';
import { writeDataset } from '../../../src/generate/index.js';

const root = mkdtempSync(path.join(tmpdir(), 'enrich-evolve-docs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const page = readFileSync(new URL('../../../docs/changes.md', import.meta.url), 'utf8');

describe('docs/changes.md', () => {
  it('quotes events that the commands it shows write', async () => {
    const set = path.join(root, 'set');
    await writeDataset({ companies: 1000, people: 10_000, seed: 1, out: set });
    const first = await evolveDataset({ in: set, out: `${set}-1`, seed: 1, months: 1 });
    const second = await evolveDataset({ in: `${set}-1`, out: `${set}-2`, seed: 1, months: 3 });
    const written = new Set(
      [first, second].flatMap((summary) => readFileSync(summary.files[2]!, 'utf8').trim().split('\n')),
    );
    const quoted = page.split('\n').filter((line) => line.startsWith('{"type":'));
    expect(quoted.length).toBe(11);
    for (const line of quoted) expect(written.has(line), line).toBe(true);
    expect(page).toContain(
      `evolved 1 month to ${first.asOf} in data/set-1: 1000 → ${first.companies.written} companies`,
    );
    expect(page).toContain(
      `evolved 3 months to ${second.asOf} in data/set-2: 1001 → ${second.companies.written} companies`,
    );
  });
});
