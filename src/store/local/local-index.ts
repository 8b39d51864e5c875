// A server's local copy of a PostgreSQL store's read path — records by id and by identifier, and the API
// keys — in LMDB, in a directory of the machine's own: written by one process (the follower, follow.ts),
// read without a query by every process of the machine.
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, open, type RootDatabase } from 'lmdb';
import { ENTITIES, type Entity, type IdentifierKind } from '../../vocabulary/entities.js';
import { fileModes, privateDir, privateFile } from '../file-modes.js';
import type { StoredKey } from '../keys.js';
import type { ServedRecord } from '../records.js';
import { applyChange, type EntityDbs, encodeRow, fitsKey, readRecords } from '../serving/entity.js';
import type { RecordChange, SourceRow } from '../serving/source.js';
import { isAlive, thisWriter, type WriterId } from '../serving/writers.js';

/** Bump when the layout changes: an index of another layout is emptied and built again. */
const LAYOUT = 1;
/** As the serving index's: records of up to about 8 KB fit in the tree's pages. */
const PAGE_SIZE = 16_384;
/** [ready: u8][keys stamp: u32 LE][store id, Latin-1]: what every lookup reads, in one small value. */
const FLAGS_KEY = 's';

/** What the index holds of the store it copies, as its follower last wrote it. */
export interface LocalState {
  /** The PostgreSQL store's id (store_meta.store_id); undefined for an index never built. */
  store: string | undefined;
  /** The last change-log entry applied. */
  cursor: number;
  /** The store's keys version the keys held here are of. */
  keysVersion: number;
  /** Built (and not being built again): the records are those of the store as of `cursor`. */
  built: boolean;
}

/** The process (and its opening of the index) that writes it. */
interface Leader extends WriterId {
  instance: string;
}

/** A change of one record of an entity, as the follower applies it. */
export interface EntityChange extends RecordChange {
  entity: Entity;
}

/** LMDB's magic number, in each of the two meta pages that begin its data file (after lmdb-js's 24-byte page header). */
const LMDB_MAGIC = 0xbeefc0de;

/**
 * True when the file is empty (new) or begins with LMDB's two meta pages of this index's page size: LMDB
 * trusts its file, and a damaged one could crash the process rather than fail to open.
 */
function looksLikeLmdb(path: string): boolean {
  const size = statSync(path).size;
  if (size === 0) return true;
  if (size < 2 * PAGE_SIZE) return false;
  const fd = openSync(path, 'r');
  try {
    const page = Buffer.alloc(28);
    for (const at of [0, PAGE_SIZE]) {
      readSync(fd, page, 0, page.length, at);
      if (page.readUInt32LE(24) !== LMDB_MAGIC) return false;
    }
    return true;
  } finally {
    closeSync(fd);
  }
}

/**
 * The files of a local index: opened (made private first), and emptied when they are not an index of this
 * layout — a corrupt or foreign directory is never served, it is built again.
 */
function openEnvironment(path: string): RootDatabase {
  const options = { path, noSync: true, maxDbs: 12, compression: false, cache: false, pageSize: PAGE_SIZE };
  const privately = () => {
    const modes = fileModes();
    privateDir(join(path, '..'), modes);
    privateFile(path, modes);
    privateFile(`${path}-lock`, modes);
  };
  const fresh = () => {
    rmSync(path, { force: true });
    rmSync(`${path}-lock`, { force: true });
    privately();
    return open(options);
  };
  privately();
  if (!looksLikeLmdb(path)) return fresh();
  let env: RootDatabase;
  try {
    env = open(options);
    const layout = env.openDB({ name: 'meta' }).get('layout');
    if ((env.getStats() as { pageSize: number }).pageSize === PAGE_SIZE && (layout ?? LAYOUT) === LAYOUT)
      return env;
    env.close();
  } catch {
    // Not an LMDB file of ours (corrupt, truncated, foreign): made again, empty.
  }
  env = fresh();
  return env;
}

/**
 * Lookups read here synchronously: `findRecords` and `key`, each of the read snapshot this synchronous run of
 * code began (renewed at its first read, as the serving index does, so that what the follower committed
 * before is seen). Only the process that `lead`s writes.
 */
export class LocalIndex {
  private readonly dbs: Record<Entity, EntityDbs>;
  private readonly meta: Database<unknown, string>;
  private readonly flags: Database<Buffer, string>;
  /** `h:<token hash>` → key id (current, previous and retired hashes); `k:<key id>` → the key. */
  private readonly keys: Database<unknown, string>;
  private seen: { ready: boolean; keys: number } | undefined;
  /** This opening of the index: a process may open it more than once (tests do), one of them leads. */
  private readonly instance = randomUUID();
  /** The store this process serves (its follower reads it): an index of another is never read. */
  private expected: string | undefined;
  private readonly forget = () => {
    this.seen = undefined;
  };

  private constructor(private readonly env: RootDatabase) {
    const entity = (name: Entity): EntityDbs => ({
      records: env.openDB<Buffer, string>({ name, encoding: 'binary' }),
      idents: env.openDB<string, string>({ name: `${name}_ident`, encoding: 'string' }),
    });
    this.dbs = { people: entity('people'), companies: entity('companies') };
    this.meta = env.openDB({ name: 'meta' });
    this.flags = env.openDB<Buffer, string>({ name: 'flags', encoding: 'binary' });
    this.keys = env.openDB({ name: 'keys' });
  }

  /**
   * Opens (creating) the index in `dir`.
   * @example const index = LocalIndex.open('data/local');
   */
  static open(dir: string): LocalIndex {
    return new LocalIndex(openEnvironment(join(dir, 'index.mdb')));
  }

  private current(): { ready: boolean; keys: number } {
    if (this.seen) return this.seen;
    this.env.resetReadTxn();
    // A copy, not lmdb's shared read buffer: the store id runs to the value's end, and on Node 24 that
    // buffer's length is not the value's.
    const value = this.flags.getBinary(FLAGS_KEY);
    const ours = value !== undefined && value.toString('latin1', 5) === this.expected;
    this.seen = { ready: ours && value[0] === 1, keys: value?.readUInt32LE(1) ?? 0 };
    queueMicrotask(this.forget);
    return this.seen;
  }

  /** True while lookups may read here: built and caught up with this process's store, as its follower said. */
  ready(): boolean {
    return this.current().ready;
  }

  /**
   * Names the store this process serves: the index is read only while it is of that store, checked with
   * every read snapshot, so a directory that another store's server leads (a misconfiguration) is never
   * read, even the moment it is rebuilt for that store.
   */
  serveStore(storeId: string): void {
    this.expected = storeId;
    this.seen = undefined;
  }

  /** Changes whenever the keys held here change: what a process's keys in memory are valid for. */
  keysStamp(): number {
    return this.current().keys;
  }

  /**
   * The records a lookup serves for one key, at most `limit`, in id order; undefined when the index is
   * not ready, or the identifier is carried by too many records to list (read the store instead).
   */
  findRecords(
    entity: Entity,
    kind: IdentifierKind | 'id',
    value: string,
    limit: number,
    kindCode: number,
  ): ServedRecord[] | undefined {
    if (!this.ready()) return undefined;
    return readRecords(this.dbs[entity], kind, value, limit, kindCode);
  }

  /** The key one of whose token hashes is `hash`, as held here; undefined when none is (ask the store). */
  key(hash: string): StoredKey | undefined {
    if (!this.ready()) return undefined;
    const id = this.keys.get(`h:${hash}`) as string | undefined;
    return id === undefined ? undefined : (this.keys.get(`k:${id}`) as StoredKey | undefined);
  }

  /** What the index holds, read afresh (not this run's snapshot). */
  state(): LocalState {
    this.env.resetReadTxn();
    const building = this.meta.get('building') as WriterId | undefined;
    return {
      store: this.meta.get('store') as string | undefined,
      cursor: (this.meta.get('cursor') as number | undefined) ?? 0,
      keysVersion: (this.meta.get('keysVersion') as number | undefined) ?? 0,
      built: this.meta.get('built') === true && building === undefined,
    };
  }

  /**
   * Makes this process the index's writer unless a live process of the machine is: the follower runs in
   * one process per directory, whichever asks first; another takes over within a round once it dies.
   */
  lead(): boolean {
    return this.env.transactionSync(() => {
      const leader = this.meta.get('leader') as Leader | undefined;
      if (leader?.instance === this.instance) return true;
      if (leader !== undefined && isAlive(leader)) return false;
      this.meta.putSync('leader', { ...thisWriter(), instance: this.instance } satisfies Leader);
      return true;
    });
  }

  /** Gives up the writer's role (on close), so that another process takes it at once. */
  resign(): void {
    this.env.transactionSync(() => {
      const leader = this.meta.get('leader') as Leader | undefined;
      if (leader?.instance === this.instance) this.meta.removeSync('leader');
    });
  }

  /** Empties the index for a build from `store`, out of service until `finishBuild` and `setReady`. */
  startBuild(store: string): void {
    this.env.transactionSync(() => {
      this.meta.putSync('store', store);
      this.setFlags({ ready: false });
      this.meta.putSync('building', thisWriter());
      this.meta.putSync('built', false);
      this.meta.putSync('layout', LAYOUT);
      for (const entity of ENTITIES) {
        this.dbs[entity].records.clearSync();
        this.dbs[entity].idents.clearSync();
      }
      this.keys.clearSync();
    });
    this.seen = undefined;
  }

  /** A page of a build's records, in one write transaction. */
  putRecords(entity: Entity, rows: readonly SourceRow[]): void {
    const { records } = this.dbs[entity];
    this.env.transactionSync(() => {
      for (const row of rows) records.putSync(row.id, encodeRow(row));
    });
  }

  /** A page of a build's identifier lists (`ids` in id order, or CROWDED), in one write transaction. */
  putIdentLists(entity: Entity, lists: ReadonlyArray<readonly [string, string]>): void {
    const { idents } = this.dbs[entity];
    this.env.transactionSync(() => {
      for (const [key, list] of lists) if (fitsKey(key)) idents.putSync(key, list);
    });
  }

  /** The build is complete as of change `cursor`: what follows is applied change by change. */
  finishBuild(cursor: number): void {
    this.env.transactionSync(() => {
      this.meta.putSync('cursor', cursor);
      this.meta.putSync('built', true);
      this.meta.removeSync('building');
    });
  }

  /** Applies record changes and moves the cursor, in one write transaction. */
  apply(changes: readonly EntityChange[], cursor: number | undefined): void {
    this.env.transactionSync(() => {
      for (const change of changes) applyChange(this.dbs[change.entity], change);
      if (cursor !== undefined) this.meta.putSync('cursor', cursor);
    });
    this.seen = undefined;
  }

  /** Replaces every key held (with each hash that names one) by those of the store at `version`. */
  replaceKeys(
    keys: readonly StoredKey[],
    retired: ReadonlyArray<readonly [string, string]>,
    version: number,
  ): void {
    this.env.transactionSync(() => {
      this.keys.clearSync();
      for (const key of keys) {
        this.keys.putSync(`k:${key.id}`, key);
        if (key.previous_hash) this.keys.putSync(`h:${key.previous_hash}`, key.id);
      }
      for (const [hash, id] of retired) this.keys.putSync(`h:${hash}`, id);
      // The current hash last: it names its key whatever an older one says.
      for (const key of keys) this.keys.putSync(`h:${key.hash}`, key.id);
      this.meta.putSync('keysVersion', version);
      const flags = this.readFlags();
      this.setFlags({ ready: flags.ready, keys: flags.keys + 1 });
    });
    this.seen = undefined;
  }

  /** Puts the index in service for lookups, or takes it out. */
  setReady(ready: boolean): void {
    this.env.transactionSync(() => this.setFlags({ ready }));
    this.seen = undefined;
  }

  private readFlags(): { ready: boolean; keys: number } {
    const value = this.flags.getBinary(FLAGS_KEY);
    return { ready: value?.[0] === 1, keys: value?.readUInt32LE(1) ?? 0 };
  }

  private setFlags(change: { ready: boolean; keys?: number }): void {
    const store = String(this.meta.get('store') ?? '');
    const value = Buffer.alloc(5 + Buffer.byteLength(store, 'latin1'));
    value[0] = change.ready ? 1 : 0;
    value.writeUInt32LE((change.keys ?? this.readFlags().keys) >>> 0, 1);
    value.write(store, 5, 'latin1');
    this.flags.putSync(FLAGS_KEY, value);
  }

  async close(): Promise<void> {
    await this.env.close();
  }
}
