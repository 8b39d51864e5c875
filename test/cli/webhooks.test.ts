// enrich webhooks list|show|deliveries|retry|disable: every key's endpoints from the local store, never a secret.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { enrich } from '../helpers/cli.js';
import { endpointAt } from '../webhooks/receiver.js';

const SECRET = 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0';

describe('enrich webhooks', () => {
  let dir: string;
  let db: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'enrich-cli-webhooks-'));
    db = join(dir, 'enrich.db');
    const store = openSqliteStore(db);
    for (const [id, key] of [
      ['wh_one', 'key_a'],
      ['wh_two', 'key_b'],
    ] as const) {
      await store.createEndpoint({
        ...endpointAt(`https://hooks.example.com/${id}`),
        id,
        key_id: key,
        secret: SECRET,
      });
    }
    const body = '{"id":"evt_0000000000000001"}';
    await store.enqueueDeliveries(0, 1, [
      { endpoint_id: 'wh_one', event_id: 'evt_0000000000000001', event_type: 'person.job_changed', body },
    ]);
    const [claimed] = await store.claimDeliveries(
      new Date(Date.now() + 1000),
      new Date(Date.now() + 60_000),
      1,
      1,
    );
    await store.recordAttempts([
      {
        delivery: claimed!,
        attempt: {
          at: new Date().toISOString(),
          status_code: 500,
          duration_ms: 3,
          error: null,
          response: 'down',
        },
        outcome: { status: 'failed' },
        health: 'failed',
      },
    ]);
    await store.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("lists every key's endpoints, and never a secret", () => {
    const run = enrich(['webhooks', 'list', '--db', db]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^ID\s+KEY\s+URL\s+TYPES\s+STATE\n/);
    expect(run.stdout).toContain('wh_one  key_a');
    expect(run.stdout).toContain('wh_two  key_b');
    const json = enrich(['webhooks', 'list', '--db', db, '--json']);
    expect(JSON.parse(json.stdout).map((e: { id: string }) => e.id)).toEqual(['wh_one', 'wh_two']);
    expect(json.stdout + run.stdout).not.toContain('whsec_');
  });

  it('shows deliveries, retries a failed one and disables an endpoint', () => {
    const deliveries = enrich(['webhooks', 'deliveries', 'wh_one', '--db', db, '--json']);
    const [delivery] = JSON.parse(deliveries.stdout);
    expect(delivery).toMatchObject({ status: 'failed', attempts: [{ status_code: 500, response: 'down' }] });
    const table = enrich(['webhooks', 'deliveries', 'wh_one', '--db', db, '--status', 'failed']);
    expect(table.stdout).toMatch(
      new RegExp(`${delivery.id}\\s+evt_0000000000000001\\s+person\\.job_changed\\s+failed\\s+1\\s+500\\n`),
    );

    expect(enrich(['webhooks', 'retry', 'wh_one', delivery.id, '--db', db]).stdout).toContain(
      'due again now',
    );
    const shown = JSON.parse(enrich(['webhooks', 'show', 'wh_one', '--db', db, '--json']).stdout);
    expect(shown).toMatchObject({ id: 'wh_one', pending: 1, disabled: false });
    expect(JSON.stringify(shown)).not.toContain('whsec_');

    expect(enrich(['webhooks', 'disable', 'wh_two', '--db', db]).stdout).toContain(
      'Disabled webhook endpoint wh_two',
    );
    expect(enrich(['webhooks', 'list', '--db', db]).stdout).toContain('disabled (manual)');
    const missing = enrich(['webhooks', 'show', 'wh_nope', '--db', db]);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('no webhook endpoint wh_nope');
  });
});
