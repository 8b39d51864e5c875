// enrich changes, as the real binary runs it: the store's change events one a line or as NDJSON, resumed from
// the cursor it prints, followed until interrupted, and its options refused as the API refuses them.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listeningApp } from '../helpers/app.js';
import { enrich, enrichAsync, startEnrich } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-changes-'));
const db = join(dir, 'enrich.db');
const people = (...ids: string[]) => {
  const file = join(dir, `people-${ids.join('-')}.ndjson`);
  writeFileSync(
    file,
    ids.map((id) => `${JSON.stringify({ id, name: `Person ${id.slice(-1)}` })}\n`).join(''),
  );
  return file;
};

describe('enrich changes', () => {
  it('refuses a cursor it did not give and an unknown event type, as the API does', () => {
    expect(enrich(['import', 'people', people('fp000000000001'), '--db', db]).status).toBe(0);
    const cursor = enrich(['changes', '--after', 'nope!', '--db', db]);
    expect([cursor.status, cursor.stdout]).toEqual([1, '']);
    expect(cursor.stderr).toMatch(/^enrich: --after: not a cursor this feed gave/);
    const type = enrich(['changes', '--types', 'person.hired', '--db', db]);
    expect(type.status).toBe(1);
    expect(type.stderr).toMatch(/--types: unknown event type "person.hired"; accepted: person.created,/);
  });

  it('refuses a store that is not there rather than create one', () => {
    const run = enrich(['changes', '--db', join(dir, 'none.db')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/no store at/);
  });

  it("reads a server's feed with --url, and says why the server refused it", async () => {
    const t = await listeningApp();
    try {
      const reader = await t.newKey({ scopes: ['changes:read'] });
      const read = await enrichAsync(['changes', '--url', t.url, '--token', reader.token, '--json']);
      expect(read.status, read.stderr).toBe(0);
      expect(read.stderr).toMatch(/^next: \S+$/m);
      const refused = await enrichAsync(['changes', '--url', t.url, '--token', t.token]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/answered 403: .*changes:read/);
    } finally {
      await t.close();
    }
  });

  it('prints one line per event, oldest first, and the cursor to resume from', () => {
    const fresh = join(dir, 'lines.db');
    expect(
      enrich(['import', 'people', people('fp000000000002', 'fp000000000003'), '--db', fresh]).status,
    ).toBe(0);
    const run = enrich(['changes', '--db', fresh]);
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^evt_\d{16} {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}person\.created +fp000000000002$/);
    const next = /^next: (\S+)$/m.exec(run.stderr)![1]!;
    // Resumed: only what came after.
    expect(enrich(['import', 'people', people('fp000000000004'), '--db', fresh]).status).toBe(0);
    const json = enrich(['changes', '--json', '--after', next, '--db', fresh]);
    expect(
      json.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toMatchObject([{ type: 'person.created', data: { person_id: 'fp000000000004' } }]);
    const limited = enrich(['changes', '--limit', '1', '--types', 'person.created', '--db', fresh]);
    expect(limited.stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  it('follows events as another process commits them, until interrupted', async () => {
    const fresh = join(dir, 'follow.db');
    expect(enrich(['import', 'people', people('fp000000000005'), '--db', fresh]).status).toBe(0);
    const follow = startEnrich(['changes', '--follow', '--json', '--db', fresh]);
    let seen = '';
    follow.child.stdout!.on('data', (text: string) => (seen += text));
    const until = async (pattern: RegExp) => {
      const deadline = Date.now() + 20_000;
      while (!pattern.test(seen) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(seen).toMatch(pattern);
    };
    await until(/fp000000000005/);
    expect(enrich(['import', 'people', people('fp000000000006'), '--db', fresh]).status).toBe(0);
    await until(/fp000000000006/);
    follow.child.kill('SIGINT');
    const done = await follow.done;
    expect(done.status).toBe(0);
    expect(done.stderr).toMatch(/^next: \S+$/m);
  });
});
