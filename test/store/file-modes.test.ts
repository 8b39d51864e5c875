// The files that hold personal data — the store, its serving index, WAL and shared memory, the accounting
// journal, backups — are the service's user's alone (or its group's too, when asked), whatever the umask.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournalWriter } from '../../src/accounting/journal.js';
import { fileModes, privateFile, tighten } from '../../src/store/file-modes.js';
import { backupStore } from '../../src/store/sqlite/backup.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { seed } from '../helpers/app.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

let dir: string;
let umask: number;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'enrich-modes-'));
  umask = process.umask(0o022); // as most systems have it: files 0644, directories 0755 unless told
});
afterEach(() => {
  process.umask(umask);
  delete process.env.ENRICH_GROUP_READABLE;
  rmSync(dir, { recursive: true, force: true });
});

/** A store written to (WAL and shared memory in use), with a journal segment, then closed. */
async function writtenStore(db: string, journal: string) {
  const store = openSqliteStore(db);
  await seed(store, 'people', [{ id: 'fp000000000001', name: 'Jane Citizen' }]);
  const modes = { db: modeOf(db), wal: modeOf(`${db}-wal`), shm: modeOf(`${db}-shm`) };
  const writer = new JournalWriter(journal);
  writer.append('line\n');
  writer.commit();
  writer.close();
  await store.close();
  return modes;
}

/** Every file and directory under `root`, with its mode. */
const modesUnder = (root: string): Record<string, number> =>
  Object.fromEntries(
    readdirSync(root, { recursive: true, encoding: 'utf8' }).map((name) => [name, modeOf(join(root, name))]),
  );

describe('the modes of the files that hold personal data', () => {
  it('are 0600 for the store, its serving index, WAL, shared memory and journal; 0700 for directories', async () => {
    const db = join(dir, 'data', 'enrich.db');
    const journal = join(dir, 'data', 'enrich.db-accounting');
    const open = await writtenStore(db, journal);
    expect(open).toEqual({ db: 0o600, wal: 0o600, shm: 0o600 });
    const all = modesUnder(join(dir, 'data'));
    expect(Object.keys(all)).toEqual(
      expect.arrayContaining([
        'enrich.db',
        'enrich.db-index',
        'enrich.db-index-lock',
        'enrich.db-accounting',
      ]),
    );
    for (const [name, mode] of Object.entries(all)) {
      expect(mode, name).toBe(name === 'enrich.db-accounting' ? 0o700 : 0o600);
    }
    expect(modeOf(join(dir, 'data'))).toBe(0o700);
  });

  it('are tightened when files made by an earlier version are opened', async () => {
    const db = join(dir, 'enrich.db');
    const journal = join(dir, 'journal');
    await writtenStore(db, journal);
    mkdirSync(journal, { recursive: true });
    writeFileSync(`${db}-wal`, '');
    for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      chmodSync(join(dir, name), name === 'journal' ? 0o755 : 0o644);
    }
    await writtenStore(db, journal);
    for (const [name, mode] of Object.entries(modesUnder(dir))) {
      expect(mode, name).toBe(name === 'journal' ? 0o700 : 0o600);
    }
  });

  it('let the group read them with ENRICH_GROUP_READABLE=true', async () => {
    process.env.ENRICH_GROUP_READABLE = 'true';
    const db = join(dir, 'enrich.db');
    const journal = join(dir, 'journal');
    expect(await writtenStore(db, journal)).toEqual({ db: 0o640, wal: 0o640, shm: 0o640 });
    for (const [name, mode] of Object.entries(modesUnder(dir))) {
      expect(mode, name).toBe(name === 'journal' ? 0o750 : 0o640);
    }
  });

  it('are 0600 for a backup, even while it is being written', async () => {
    const db = join(dir, 'enrich.db');
    await writtenStore(db, join(dir, 'journal'));
    const copy = join(dir, 'backup.db');
    let during = 0;
    await backupStore(db, copy, () => {
      during ||= modeOf(
        readdirSync(dir)
          .map((name) => join(dir, name))
          .find((p) => p.includes('.partial-'))!,
      );
    });
    expect(during).toBe(0o600);
    expect(modeOf(copy)).toBe(0o600);
  });
});

describe('file modes', () => {
  it('are read from ENRICH_GROUP_READABLE, refusing anything but true or false', () => {
    expect(fileModes({})).toEqual({ file: 0o600, dir: 0o700 });
    expect(fileModes({ ENRICH_GROUP_READABLE: 'false' })).toEqual({ file: 0o600, dir: 0o700 });
    expect(fileModes({ ENRICH_GROUP_READABLE: '1' })).toEqual({ file: 0o640, dir: 0o750 });
    expect(() => fileModes({ ENRICH_GROUP_READABLE: 'yes' })).toThrow(
      'ENRICH_GROUP_READABLE must be true or false (got "yes")',
    );
  });

  it('are tightened, never loosened, and a file is made empty only when missing', () => {
    const file = join(dir, 'f');
    writeFileSync(file, 'kept');
    chmodSync(file, 0o400);
    tighten(file, 0o600);
    expect(modeOf(file)).toBe(0o400);
    chmodSync(file, 0o666);
    privateFile(file);
    expect(modeOf(file)).toBe(0o600);
    expect(statSync(file).size).toBe(4);
    tighten(join(dir, 'missing'), 0o600);
  });
});
