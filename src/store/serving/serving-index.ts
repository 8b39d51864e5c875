// The serving index: every record's stored bytes by id and by each normalised identifier, in LMDB beside
// the SQLite file — read without SQL, from memory-mapped pages that every process of the machine shares.
import { randomUUID } from 'node:crypto';
import { type Database, open, type RootDatabase } from 'lmdb';
import type { Entity, IdentifierKind, ServedRecord } from '../store.js';
import { CROWDED, listedIds, withId, withoutId } from './id-lists.js';
import { isAlive, thisWriter, type WriterId } from './writers.js';

/** A record as the store of record holds it: `idents` is its identifier list, `[[kind code, value], …]`. */
export interface SourceRow {
  id: string;
  etag: string;
  body: string;
  idents: string;
}

/** One record after a write: its new row, or none when it was deleted. */
export interface RecordChange {
  id: string;
  row?: SourceRow;
}

/** How the index reads the store of record, to repair an unfinished write or to rebuild. */
export interface IndexSource {
  /** Identifies the store (a new or replaced file gets another id). */
  storeId(): string;
  /** Bumped by every transaction that writes records; the index holds the one it reflects. */
  generation(): number;
  /** The rows of these ids that exist. */
  rows(entity: Entity, ids: readonly string[]): SourceRow[];
  /** Up to `limit` rows after `afterId`, in id order. */
  page(entity: Entity, afterId: string, limit: number): SourceRow[];
}

/** What a write changes: the records of an entity, or the API keys (which servers hold in memory). */
export type WriteScope = Entity | 'keys';

/** A write announced before it begins, so that it can be repaired if its process dies half-way. */
interface Intent {
  writer: WriterId;
  entity: WriteScope;
  ids: string[];
}

type State = 'ready' | { building: WriterId };

/** Bump when the layout of the index changes: an index of another layout is rebuilt. */
const LAYOUT = 2;
const REBUILD_PAGE = 5_000;
const ENTITIES: readonly Entity[] = ['people', 'companies'];

/** Record value: [etag length: u8][etag][idents length: u32 LE][idents JSON][body], all UTF-8. */
function encodeRow(row: SourceRow): Buffer {
  const etagBytes = Buffer.byteLength(row.etag, 'latin1');
  const identsBytes = Buffer.byteLength(row.idents);
  const bodyBytes = Buffer.byteLength(row.body);
  const value = Buffer.allocUnsafe(5 + etagBytes + identsBytes + bodyBytes);
  value[0] = etagBytes;
  value.write(row.etag, 1, 'latin1');
  value.writeUInt32LE(identsBytes, 1 + etagBytes);
  value.write(row.idents, 5 + etagBytes, 'utf8');
  value.write(row.body, 5 + etagBytes + identsBytes, 'utf8');
  return value;
}

function identsOf(value: Buffer): string {
  const etagEnd = 1 + value[0]!;
  return value.toString('utf8', etagEnd + 4, etagEnd + 4 + value.readUInt32LE(etagEnd));
}

/**
 * The record a value holds. `value` is lmdb's shared read buffer (getBinaryFast: no allocation), valid
 * until the next read, so the body is copied out — into Node's pooled memory, cheaper than a fresh
 * zeroed buffer per read.
 */
function served(id: string, value: Buffer): ServedRecord {
  const etagEnd = 1 + value[0]!;
  const bodyStart = etagEnd + 4 + value.readUInt32LE(etagEnd);
  const body = Buffer.allocUnsafe(value.length - bodyStart);
  value.copy(body, 0, bodyStart);
  return { id, etag: value.toString('latin1', 1, etagEnd), body };
}

/** The flags every lookup reads, in one small value: [ready: u8][keys version: u32 LE]. */
const FLAGS_KEY = 's';
const flagsValue = (ready: boolean, keysVersion: number) => {
  const value = Buffer.alloc(5);
  value[0] = ready ? 1 : 0;
  value.writeUInt32LE(keysVersion >>> 0, 1);
  return value;
};

/** The index keys of an identifier list: `<kind code>:<value>`. */
const identKeys = (idents: string) =>
  (JSON.parse(idents) as Array<[number, string]>).map(([kind, value]) => `${kind}:${value}`);

interface EntityDbs {
  records: Database<Buffer, string>;
  idents: Database<string, string>;
}

/**
 * Lookups read records here: by id, or through an identifier's ids, in one read transaction per
 * event-loop turn (lmdb-js renews it each turn). Writes follow the store of record: each write is
 * announced (an intent), the SQLite transaction commits while this index's write lock is held, and the
 * same changes are applied before the lock is released — so the index and SQLite change in the same
 * order, and a write whose process died half-way is found by its intent and repaired from SQLite.
 * Lookups fall back to SQLite while the index is not ready (being built, or never built).
 */
export class ServingIndex {
  private readonly dbs: Record<Entity, EntityDbs>;
  private readonly meta: Database<unknown, string>;
  private readonly flags: Database<Buffer, string>;
  private readonly intents: Database<Intent, string>;
  private readonly kindCodes: Readonly<Record<IdentifierKind, number>>;

  private constructor(
    private readonly env: RootDatabase,
    private readonly source: IndexSource,
    kindCodes: Readonly<Record<IdentifierKind, number>>,
  ) {
    this.kindCodes = kindCodes;
    const entity = (name: Entity): EntityDbs => ({
      records: env.openDB<Buffer, string>({ name, encoding: 'binary' }),
      idents: env.openDB<string, string>({ name: `${name}_ident`, encoding: 'string' }),
    });
    this.dbs = { people: entity('people'), companies: entity('companies') };
    this.meta = env.openDB({ name: 'meta' });
    this.flags = env.openDB<Buffer, string>({ name: 'flags', encoding: 'binary' });
    this.intents = env.openDB<Intent, string>({ name: 'intents' });
  }

  /**
   * Opens (creating) the index at `path` for the store `source` reads.
   * @example const index = ServingIndex.open('./data/enrich.db-index', source, KIND_CODES);
   */
  static open(path: string, source: IndexSource, kindCodes: Readonly<Record<IdentifierKind, number>>) {
    // No fsync: the index is derived from SQLite, which is durable; after a machine crash that lost
    // its last transactions, the generation no longer matches SQLite's and the index is rebuilt.
    const env = open({ path, noSync: true, maxDbs: 8, compression: false, cache: false });
    return new ServingIndex(env, source, kindCodes);
  }

  /**
   * The flags as this synchronous run of code sees them. The first read of a run starts a fresh read
   * snapshot (lmdb-js would otherwise renew it only from a timer, up to a millisecond or so later), so a
   * commit made anywhere before the run — a revocation, an import — is seen by it; the flags are then
   * remembered until the run's microtasks, and every read of the run is of that one snapshot.
   */
  private seen: { ready: boolean; keys: number } | undefined;
  private readonly forget = () => {
    this.seen = undefined;
  };

  private current(): { ready: boolean; keys: number } {
    if (this.seen) return this.seen;
    this.env.resetReadTxn();
    const flags = this.flags.getBinaryFast(FLAGS_KEY);
    this.seen = { ready: flags?.[0] === 1, keys: flags?.readUInt32LE(1) ?? 0 };
    queueMicrotask(this.forget);
    return this.seen;
  }

  /** True when lookups may read the index: built, and not being rebuilt. */
  ready(): boolean {
    return this.current().ready;
  }

  /**
   * Changes whenever API keys change in any process (created, revoked, rotated): what a server's keys
   * held in memory are valid for. Read in the lookup's own snapshot, so a commit before it is seen.
   */
  keysVersion(): number {
    return this.current().keys;
  }

  private setFlags(ready: boolean, keysVersion: number): void {
    this.flags.putSync(FLAGS_KEY, flagsValue(ready, keysVersion));
  }

  private bumpKeys(): void {
    const flags = this.flags.getBinary(FLAGS_KEY);
    this.setFlags(flags?.[0] === 1, (flags?.readUInt32LE(1) ?? 0) + 1);
  }

  /** Ready, as the latest snapshot (or this write) has it, bypassing what this run remembers. */
  private readyNow(): boolean {
    return this.flags.getBinary(FLAGS_KEY)?.[0] === 1;
  }

  /**
   * What a lookup serves for one key: the record of an id, or the records carrying an identifier, at
   * most `limit`, in id order. Undefined when the index is not ready, or the identifier is carried by
   * too many records to list: read the store of record instead.
   */
  findRecords(
    entity: Entity,
    kind: IdentifierKind | 'id',
    value: string,
    limit: number,
  ): ServedRecord[] | undefined {
    if (!this.ready()) return undefined;
    const { records, idents } = this.dbs[entity];
    if (kind === 'id') {
      const found = limit > 0 ? records.getBinaryFast(value) : undefined;
      return found ? [served(value, found)] : [];
    }
    const list = idents.get(`${this.kindCodes[kind]}:${value}`);
    if (list === undefined) return [];
    if (list === CROWDED) return undefined;
    const out: ServedRecord[] = [];
    for (const id of listedIds(list, limit)) {
      const found = records.getBinaryFast(id);
      if (found) out.push(served(id, found));
    }
    return out;
  }

  /**
   * Runs a write of the store of record and applies its changes here. `commit` runs the SQLite
   * transaction (and must commit it) while this index's write lock is held; it returns what changed
   * and the store's new generation.
   */
  write<T>(
    scope: WriteScope,
    ids: readonly string[],
    commit: () => { result: T; changes?: RecordChange[]; generation?: number },
  ): T {
    const intent = randomUUID();
    this.intents.putSync(intent, { writer: thisWriter(), entity: scope, ids: [...ids] });
    try {
      return this.env.transactionSync(() => {
        const { result, changes = [], generation } = commit();
        if (scope === 'keys') this.bumpKeys();
        else for (const change of changes) this.apply(scope, change);
        if (generation !== undefined) this.meta.putSync('generation', generation);
        this.intents.removeSync(intent);
        this.seen = undefined;
        return result;
      });
    } catch (error) {
      this.abandon(intent);
      throw error;
    }
  }

  /**
   * Brings the index in line with the store of record: repairs the writes of processes that died
   * half-way, and rebuilds when the index was never built, is of another layout, belongs to another
   * store or has missed writes (a restored file). Returns what it did; `busy` when another live
   * process is rebuilding (lookups read SQLite meanwhile).
   */
  reconcile(): 'current' | 'repaired' | 'rebuilt' | 'busy' {
    this.seen = undefined;
    if (this.looksCurrent()) return 'current';
    const verdict = this.env.transactionSync(() => {
      const repaired = this.repairAbandoned();
      const state = this.meta.get('state') as State | undefined;
      if (state !== undefined && state !== 'ready' && isAlive(state.building)) return 'busy';
      const matches =
        state === 'ready' &&
        this.readyNow() &&
        this.meta.get('layout') === LAYOUT &&
        this.meta.get('store') === this.source.storeId();
      if (matches && (repaired || this.meta.get('generation') === this.source.generation())) {
        this.meta.putSync('generation', this.source.generation());
        return repaired ? 'repaired' : 'current';
      }
      this.meta.putSync('state', { building: thisWriter() } satisfies State);
      this.setFlags(false, this.flags.getBinary(FLAGS_KEY)?.readUInt32LE(1) ?? 0);
      for (const entity of ENTITIES) {
        this.dbs[entity].records.clearSync();
        this.dbs[entity].idents.clearSync();
      }
      return 'rebuild';
    });
    if (verdict !== 'rebuild') return verdict;
    this.rebuild();
    this.seen = undefined;
    return 'rebuilt';
  }

  /** Cheap, without the write lock: ready, of this layout and store, at the store's generation, nothing abandoned. */
  private looksCurrent(): boolean {
    this.env.resetReadTxn();
    return (
      this.meta.get('state') === 'ready' &&
      this.readyNow() &&
      this.meta.get('layout') === LAYOUT &&
      this.meta.get('store') === this.source.storeId() &&
      this.meta.get('generation') === this.source.generation() &&
      this.abandonedIntents().length === 0
    );
  }

  /** Copies every record from the store of record, a page per transaction, then marks the index ready. */
  private rebuild(): void {
    for (const entity of ENTITIES) {
      let after = '';
      for (let full = true; full; ) {
        this.env.transactionSync(() => {
          const rows = this.source.page(entity, after, REBUILD_PAGE);
          for (const row of rows) this.apply(entity, { id: row.id, row });
          full = rows.length === REBUILD_PAGE;
          after = rows.at(-1)?.id ?? after;
        });
      }
    }
    this.env.transactionSync(() => {
      this.meta.putSync('generation', this.source.generation());
      this.meta.putSync('store', this.source.storeId());
      this.meta.putSync('layout', LAYOUT);
      this.meta.putSync('state', 'ready' satisfies State);
      this.setFlags(true, this.flags.getBinary(FLAGS_KEY)?.readUInt32LE(1) ?? 0);
    });
  }

  /** Replaces (or removes) one record and its identifiers. */
  private apply(entity: Entity, { id, row }: RecordChange): void {
    const { records, idents } = this.dbs[entity];
    const before = records.getBinary(id);
    const oldIdents = before ? identsOf(before) : '[]';
    const newIdents = row?.idents ?? '[]';
    if (oldIdents !== newIdents) {
      const now = new Set(identKeys(newIdents));
      const old = new Set(identKeys(oldIdents));
      for (const key of old) {
        if (now.has(key)) continue;
        const list = idents.get(key);
        const rest = list === undefined ? undefined : withoutId(list, id);
        if (rest === undefined) idents.removeSync(key);
        else if (rest !== list) idents.putSync(key, rest);
      }
      for (const key of now) {
        if (old.has(key)) continue;
        const list = idents.get(key);
        const more = withId(list, id);
        if (more !== list) idents.putSync(key, more);
      }
    }
    if (row) records.putSync(id, encodeRow(row));
    else if (before) records.removeSync(id);
  }

  private abandonedIntents(): Array<{ key: string; value: Intent }> {
    return [...this.intents.getRange()].filter(({ value }) => !isAlive(value.writer)) as Array<{
      key: string;
      value: Intent;
    }>;
  }

  /** Inside the write lock: re-reads from SQLite every record an abandoned write named. */
  private repairAbandoned(): boolean {
    const abandoned = this.abandonedIntents();
    for (const { key, value } of abandoned) {
      const scope = value.entity;
      if (scope === 'keys') {
        this.bumpKeys();
      } else {
        const rows = new Map(this.source.rows(scope, value.ids).map((row) => [row.id, row]));
        for (const id of value.ids) this.apply(scope, { id, row: rows.get(id) });
      }
      this.intents.removeSync(key);
    }
    return abandoned.length > 0;
  }

  /** A write failed: repair what it named now, or leave it marked abandoned for the next reconcile. */
  private abandon(intent: string): void {
    try {
      const value = this.intents.get(intent);
      if (value) this.intents.putSync(intent, { ...value, writer: { pid: 0, started: 0 } });
      this.env.transactionSync(() => this.repairAbandoned());
    } catch {
      // The next reconcile (every process's start, and a server's every second) repairs it.
    }
  }

  async close(): Promise<void> {
    await this.env.close();
  }
}
