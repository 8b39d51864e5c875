// enrich backup and restore through the real binary: a backup taken while an import runs and a server answers
// lookups restores — into a new path, and in place — to a store that serves, loses no lookup and keeps the
// Store contract.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/sqlite/schema.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { type Server, serve } from '../cluster/serve.js';
import { enrich, startEnrich } from '../helpers/cli.js';
import { describeStoreContract } from '../store/contract.js';

const dir = mkdtempSync(join(tmpdir(), 'enrich-backup-'));
const db = join(dir, 'enrich.db');
const backup = join(dir, 'backup.db');
const elsewhere = join(dir, 'elsewhere', 'restored.db');
const BIG = 60_000;

const firstIds = (file: string, n: number) =>
  readFileSync(file, 'utf8')
    .split('\n', n)
    .map((line) => (JSON.parse(line) as { id: string }).id);

/** The first column of the first row `sql` reads from the SQLite file. */
function valueIn(file: string, sql: string): unknown {
  const conn = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return conn.prepare(sql).pluck().get();
  } finally {
    conn.close();
  }
}
const countIn = (file: string, sql: string) => valueIn(file, sql) as number;

/** Keyed lookups each server answered, and how many of them matched: what its audit log must hold. */
const answered = new Map<string, { requests: number; matched: number }>();

async function lookup(server: Server, token: string, query: string): Promise<number> {
  const response = await fetch(`${server.url}/people?${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await response.arrayBuffer();
  const counts = answered.get(server.url) ?? { requests: 0, matched: 0 };
  answered.set(server.url, {
    requests: counts.requests + 1,
    matched: counts.matched + (response.ok ? 1 : 0),
  });
  return response.status;
}

/** Lookups in a loop until stopped: every status they got. */
function keepLookingUp(server: Server, token: string, ids: string[]) {
  const statuses: number[] = [];
  let running = true;
  const loops = Array.from({ length: 4 }, async (_, n) => {
    for (let i = n; running; i += 4) statuses.push(await lookup(server, token, `id=${ids[i % ids.length]}`));
  });
  return async () => {
    running = false;
    await Promise.all(loops);
    return statuses;
  };
}

let token = '';
let keyId = '';
let baseIds: string[] = [];
let bigIds: string[] = [];
let bigFile = '';
/** Matched lookups answered before the backup began. */
let answeredBefore = 0;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An import of tens of thousands of people raced against a backup: seconds alone, more on a busy machine. */
const HEAVY_MS = 180_000;
describe('enrich backup and restore', () => {
  let server: Server | undefined;

  beforeAll(() => {
    const base = join(dir, 'base');
    const big = join(dir, 'big');
    expect(
      enrich(['generate', '--companies', '100', '--people', '2000', '--seed', '1', '--out', base]).status,
    ).toBe(0);
    expect(
      enrich(['generate', '--companies', '10', '--people', String(BIG), '--seed', '2', '--out', big]).status,
    ).toBe(0);
    expect(enrich(['import', 'people', join(base, 'people.ndjson'), '--db', db]).status).toBe(0);
    baseIds = firstIds(join(base, 'people.ndjson'), 200);
    bigFile = join(big, 'people.ndjson');
    bigIds = firstIds(bigFile, BIG);
    token = enrich(['keys', 'create', '--name', 'backed up', '--rate', '1000000', '--db', db])
      .stdout.trim()
      .split('\n')
      .at(-1)!;
    keyId = JSON.parse(enrich(['keys', 'list', '--json', '--db', db]).stdout)[0].id;
  });

  afterAll(async () => {
    await server?.stop();
  });

  it(
    'takes a consistent copy while an import runs and a server answers lookups',
    async () => {
      server = await serve(['--db', db, '--workers', '1']);
      for (const id of baseIds.slice(0, 50)) expect(await lookup(server, token, `id=${id}`)).toBe(200);

      const importing = startEnrich(['import', 'people', bigFile, '--db', db]);
      // Under way once its first batch is served.
      while ((await lookup(server, token, `id=${bigIds[0]}`)) !== 200) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(importing.child.exitCode, 'the import ended before the backup began').toBeNull();
      }
      answeredBefore = answered.get(server.url)!.matched;
      const stopLookups = keepLookingUp(server, token, baseIds);
      const backedUp = await startEnrich(['backup', backup, '--db', db]).done;
      const importRanThroughout = importing.child.exitCode === null;
      const statuses = await stopLookups();

      expect(backedUp.stderr).toBe('');
      expect(backedUp.status).toBe(0);
      expect(backedUp.stdout).toMatch(
        /backup\.db: .*enrich\.db backed up, [\d,]+ people, 0 companies and 1 key \(\d+ MB\) in [\d.]+ s/,
      );
      expect(importRanThroughout, 'the import ran for the whole backup').toBe(true);
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.every((status) => status === 200)).toBe(true);
      expect((await importing.done).status).toBe(0);

      // Whole import transactions only, and at least the lookups answered before the backup began.
      // A transaction's created events are its last writes: a copy taken part-way through one would hold
      // records without them.
      const people = countIn(backup, 'SELECT count(*) FROM people');
      expect(countIn(backup, "SELECT count(*) FROM change_log WHERE type = 'person.created'")).toBe(people);
      const copied = people - 2000;
      expect(copied).toBeGreaterThan(0);
      expect(copied).toBeLessThan(BIG);
      expect(valueIn(backup, 'PRAGMA quick_check')).toBe('ok');
      expect(
        countIn(backup, `SELECT sum(matched) FROM key_usage WHERE key_id = '${keyId}'`),
      ).toBeGreaterThanOrEqual(answeredBefore);
      // A plain file of its own: no WAL beside it.
      expect(valueIn(backup, 'PRAGMA journal_mode')).toBe('delete');
    },
    HEAVY_MS,
  );

  it('refuses to overwrite a file unless told to', () => {
    const again = enrich(['backup', backup, '--db', db]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(`${backup} exists: give another name, or --force to replace it`);
    const forced = enrich(['backup', join(dir, 'forced.db'), '--db', db]);
    expect(forced.status).toBe(0);
    expect(enrich(['backup', join(dir, 'forced.db'), '--force', '--db', db]).status).toBe(0);
  });

  it('refuses to restore over the store while a server holds it, and says which', () => {
    const refused = enrich(['restore', backup, '--db', db]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe(
      `enrich: a server (pid ${server!.child.pid}) is using ${db}: stop it first, then restore\n`,
    );
    expect(countIn(db, 'SELECT count(*) FROM people')).toBe(2000 + BIG);
  });

  it('restores into a new path, where a server serves the copy by id and by identifier', async () => {
    const restored = enrich(['restore', backup, '--db', elsewhere]);
    expect(restored.stderr).toBe('');
    expect(restored.status).toBe(0);
    expect(restored.stdout).toMatch(
      /restored\.db: restored from .*backup\.db, [\d,]+ people, 0 companies and 1 key; serving index rebuilt/,
    );
    const people = countIn(elsewhere, 'SELECT count(*) FROM people');
    const copy = await serve(['--db', elsewhere, '--workers', '1']);
    try {
      const conn = new Database(elsewhere, { readonly: true });
      const ids = new Set(conn.prepare<[], string>('SELECT id FROM people').pluck().all());
      conn.close();
      const copied = new Set(bigIds.filter((id) => ids.has(id)));
      expect(copied.size).toBe(people - 2000);
      const inCopy = bigIds.find((id) => copied.has(id))!;
      const notInCopy = [...bigIds].reverse().find((id) => !copied.has(id))!;
      expect(await lookup(copy, token, `id=${inCopy}`)).toBe(200);
      expect(await lookup(copy, token, `id=${notInCopy}`)).toBe(404);
      const record = JSON.parse(
        readFileSync(bigFile, 'utf8')
          .split('\n')
          .find((l) => l.includes(inCopy))!,
      );
      const email = record.emails?.work?.[0]?.value ?? record.emails?.personal?.[0]?.value;
      const kind = record.emails?.work?.[0]?.value ? 'work_email' : 'personal_email';
      expect(await lookup(copy, token, `${kind}=${encodeURIComponent(email)}`)).toBe(200);
    } finally {
      await copy.stop();
    }
  });

  it('restores in place after the server is killed, keeping the lookups its journal holds', async () => {
    // Lookups after the backup: the killed server's journal holds them, and the restored store gets them.
    for (const id of baseIds.slice(0, 30)) expect(await lookup(server!, token, `id=${id}`)).toBe(200);
    const killed = server!;
    const inAll = answered.get(killed.url)!;
    killed.child.kill('SIGKILL');
    await new Promise((resolve) => killed.child.once('exit', resolve));
    server = undefined;

    const restored = enrich(['restore', backup, '--db', db]);
    expect(restored.stderr).toBe('');
    expect(restored.status).toBe(0);
    expect(countIn(db, 'SELECT count(*) FROM people')).toBe(countIn(backup, 'SELECT count(*) FROM people'));
    // Every lookup the killed server answered, once: those the backup holds, and the rest from its journal
    // (the lookups made while the backup ran and after it), never one twice.
    const sum = (column: string) => `SELECT sum(${column}) FROM key_usage WHERE key_id = '${keyId}'`;
    expect(countIn(db, sum('requests'))).toBe(inAll.requests); // folded by the restore itself
    expect(countIn(db, sum('matched'))).toBe(inAll.matched);
    expect(restored.stdout).toMatch(/ [1-9][\d,]* lookups? folded in from the accounting journal/);
    const usage = JSON.parse(enrich(['usage', '--key', keyId, '--json', '--db', db]).stdout);
    expect(usage.totals).toMatchObject({ requests: inAll.requests, matched: inAll.matched });
    const audited = enrich(['audit', '--key', keyId, '--limit', '100000', '--json', '--db', db]);
    expect(JSON.parse(audited.stdout)).toHaveLength(inAll.requests);

    server = await serve(['--db', db, '--workers', '1']);
    expect(await lookup(server, token, `id=${baseIds[0]}`)).toBe(200);
  });

  it('refuses a file that is not an Enrich store, and leaves the store as it was', () => {
    const notSqlite = enrich(['restore', bigFile, '--db', elsewhere]);
    expect(notSqlite.status).toBe(1);
    expect(notSqlite.stderr).toBe(`enrich: ${bigFile} is not a SQLite database\n`);
    const other = join(dir, 'other.db');
    const conn = new Database(other);
    conn.exec('CREATE TABLE notes (body TEXT)');
    conn.close();
    const notEnrich = enrich(['restore', other, '--db', elsewhere]);
    expect(notEnrich.status).toBe(1);
    expect(notEnrich.stderr).toBe(`enrich: ${other} is a SQLite database but not an Enrich store\n`);
    expect(enrich(['restore', join(dir, 'missing.db'), '--db', elsewhere]).stderr).toContain(
      'missing.db: no such file',
    );
    expect(valueIn(elsewhere, 'PRAGMA quick_check')).toBe('ok');
  });

  it('refuses a tampered backup, naming what its schema adds, and leaves the store as it was', () => {
    const tampering = {
      keys_unrevoke: `CREATE TRIGGER keys_unrevoke AFTER UPDATE OF revoked_at ON api_keys
        BEGIN UPDATE api_keys SET revoked_at = NULL WHERE id = NEW.id; END`,
      audit_forget: 'CREATE TRIGGER audit_forget AFTER INSERT ON audit_log BEGIN DELETE FROM audit_log; END',
    };
    const triggers = "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'";
    for (const [name, sql] of Object.entries(tampering)) {
      const tampered = join(dir, `${name}.db`);
      copyFileSync(backup, tampered);
      const conn = new Database(tampered);
      conn.exec(sql);
      conn.close();
      const restored = enrich(['restore', tampered, '--db', elsewhere]);
      expect(restored.status).toBe(1);
      expect(restored.stderr).toBe(
        `enrich: ${tampered} holds a schema that Enrich (schema ${SCHEMA_VERSION}) does not define: ` +
          `an extra trigger ${name}. Refusing to restore it\n`,
      );
      expect(countIn(elsewhere, triggers)).toBe(0);
      expect(valueIn(elsewhere, 'PRAGMA quick_check')).toBe('ok');
    }
  });

  it(
    'restores a copy taken during a bulk load into an empty store with its identifier index built',
    async () => {
      const empty = join(dir, 'bulk', 'enrich.db');
      const copy = join(dir, 'bulk', 'copy.db');
      const importing = startEnrich(['import', 'people', bigFile, '--db', empty]);
      const imported = () => {
        try {
          return countIn(empty, 'SELECT count(*) FROM people');
        } catch {
          return 0; // not created yet
        }
      };
      while (imported() === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(enrich(['backup', copy, '--db', empty]).status).toBe(0);
      await importing.done;
      // The copy caught the load half-way, and says that no one is finishing it.
      expect(valueIn(copy, 'SELECT writer FROM bulk_loads')).toBe('{"pid":0,"started":0}');

      const restored = join(dir, 'bulk', 'restored.db');
      expect(enrich(['restore', copy, '--db', restored]).status).toBe(0);
      expect(countIn(restored, 'SELECT count(*) FROM bulk_loads')).toBe(0);
      // One of the first batch, which the copy holds.
      const record = readFileSync(bigFile, 'utf8')
        .split('\n', 100)
        .map((line) => JSON.parse(line))
        .find((person) => person.emails?.personal?.[0]?.value);
      const store = openSqliteStore(restored, { servingIndex: false }); // SQLite's own identifier index
      try {
        const email = record.emails.personal[0].value.toLowerCase();
        expect(await store.findIds('people', 'personal_email', email, 2)).toEqual([record.id]);
      } finally {
        await store.close();
      }
    },
    HEAVY_MS,
  );

  it('points at PostgreSQL’s own tools when DATABASE_URL is set', () => {
    const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' };
    const backedUp = enrich(['backup', join(dir, 'pg.db')], env);
    expect(backedUp.status).toBe(1);
    expect(backedUp.stderr).toContain(
      'enrich backup is for the embedded SQLite store; DATABASE_URL is set, so back PostgreSQL up with pg_dump',
    );
    const restored = enrich(['restore', backup], env);
    expect(restored.status).toBe(1);
    expect(restored.stderr).toContain('restore PostgreSQL with pg_restore');
    expect(existsSync(join(dir, 'pg.db'))).toBe(false);
  });
});

// The Store contract wants an empty store: the restored copy, emptied of its rows — its schema, settings
// and identity kept — and copied afresh for each test.
let template: string | undefined;
function emptiedCopyOfRestored(): string {
  if (!template) {
    template = join(dir, 'contract-template.db');
    const conn = new Database(elsewhere, { readonly: true, fileMustExist: true });
    conn.exec(`VACUUM INTO '${template}'`);
    conn.close();
    const emptied = new Database(template);
    const tables = emptied
      .prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name <> 'serving_state'")
      .pluck()
      .all();
    // An FTS5 table's own shadow tables (its _data, _idx, …) go with it; only the table itself is emptied.
    const fts = tables.filter((t) =>
      /^CREATE VIRTUAL TABLE/i.test(
        emptied.prepare<[string], string>('SELECT sql FROM sqlite_schema WHERE name = ?').pluck().get(t) ??
          '',
      ),
    );
    const shadow = (t: string) => fts.some((f) => t.startsWith(`${f}_`));
    for (const table of tables) if (!shadow(table)) emptied.exec(`DELETE FROM ${table}`);
    // The webhook dispatcher's one row is part of the schema: its cursor starts at the log's beginning.
    emptied.exec('INSERT INTO webhook_dispatch (only, cursor) VALUES (1, 0)');
    emptied.exec('VACUUM');
    emptied.close();
  }
  const copy = join(mkdtempSync(join(dir, 'contract-')), 'enrich.db');
  copyFileSync(template, copy);
  return copy;
}

describeStoreContract('sqlite restored from a backup taken under load', async () =>
  openSqliteStore(emptiedCopyOfRestored()),
);
