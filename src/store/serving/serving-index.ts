// The serving index: every record's stored bytes by id and by each normalised identifier, in LMDB beside
// the SQLite file — read without SQL, from memory-mapped pages that every process of the machine shares.
import { randomUUID } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { type Database, open, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb';
import { ENTITIES, type Entity, type IdentifierKind } from '../../vocabulary/entities.js';
import { withCommitted } from '../committed.js';
import { fileModes, privateFile } from '../file-modes.js';
import type { ServedRecord } from '../records.js';
import {
  applyChange,
  type BuildPace,
  buildEntity,
  type EntityDbs,
  IN_SLICES,
  inKeyOrder,
  readRecords,
} from './entity.js';
import type { IndexSource, RecordChange, WriteScope } from './source.js';
import { isAlive, thisWriter, type WriterId } from './writers.js';

/** A write announced before it begins, so that it can be repaired if its process dies half-way. */
interface Intent {
  writer: WriterId;
  entity: WriteScope;
  ids: string[];
}

/** What a reconcile did; `rebuilding` when it left a build running in the background. */
export type Reconciled = 'current' | 'repaired' | 'rebuilt' | 'rebuilding' | 'busy';

/** A build off the event loop (a thread of its own), as the store runs it. */
export interface BackgroundBuild {
  /** Starts building these claimed entities (ServingIndex.buildClaimed); `done` settles when it has ended. */
  run(claims: Claim[]): { done: Promise<void>; stop(): void };
}

/**
 * Per entity: ready for lookups, or being built (by this writer, under this claim) and read from SQLite
 * meanwhile. A later claim (a bulk load's, another reconcile's) ends the build of an earlier one.
 */
type State = 'ready' | { building: WriterId; claim?: string };

/** An entity claimed for a build, and the claim's id: the build goes on while the claim stands. */
export interface Claim {
  entity: Entity;
  claim: string;
}

/** An entity's state while a process that is still alive builds it. */
const builtByLive = (state: State | undefined): boolean =>
  state !== undefined && state !== 'ready' && isAlive(state.building);

/** An intent whose writer died: its write is repaired from SQLite. */
const abandoned = ({ value }: { value: Intent }): boolean => !isAlive(value.writer);

/** Bump when the layout of the index changes: an index of another layout is rebuilt. */
const LAYOUT = 3;
/**
 * 16 KiB pages hold records of up to about 8 KB in the tree itself; with 4 KiB pages, a record of 2 KB
 * or more took an overflow page of its own — twice the bytes written, four times the time per put.
 */
const PAGE_SIZE = 16_384;

/**
 * Write transactions of a build between remaps: at AT_ONCE's pages, 50 transactions map at most about 15 MB
 * of the file into the process (measured: 160 MB at 1,000,000 people without).
 */
const REMAP_EVERY = 50;

/**
 * How a large write (a refresh's, an import's) goes into a large index. Applying a changed record reads a
 * dozen or more pages of the index through the map (its own, its identifiers' lists, the branch pages above
 * them), and the kernel maps up to 64 KiB around each read: they stay counted in the process's resident
 * memory until the file is unmapped, as do LMDB's copies of the pages a transaction changes until it ends. A
 * month's refresh of 1,000,000 people held 2.1 GB so in its writes of a few thousand changes each. In an
 * index past `fromBytes`, a write of more than `changes` changes is applied in parts of that many, a
 * transaction each, the file mapped afresh before each part after the first: the same refresh peaked at
 * 507–527 MB, in the same time. A smaller index is mapped whole by such a write at most, and its changes
 * share pages that parts would write again and again: a refresh of 21% of 100,000 people (a 379 MB index)
 * took 10–20% longer in parts, for half its peak (BENCHMARKS.md). A server's writes are far below `changes`.
 */
export const IN_PARTS = { changes: 32, fromBytes: 1024 ** 3 };

/** Changes in one write, applied in one transaction, past which the file is mapped afresh after it. */
const REMAP_AFTER_CHANGES = 256;

/** The flags every lookup reads, in one small value: [people ready: u8][companies ready: u8][keys version: u32 LE]. */
const FLAGS_KEY = 's';
const READY_AT: Record<Entity, number> = { people: 0, companies: 1 };

interface Flags {
  ready: Record<Entity, boolean>;
  keys: number;
}

/**
 * Lookups read records here: by id, or through an identifier's ids. Writes follow the store of record:
 * each write is announced (an intent), the SQLite transaction commits while this index's write lock is
 * held, and the same changes are applied before the lock is released — so the index and SQLite change in
 * the same order, and a write whose process died half-way is found by its intent and repaired from
 * SQLite. An entity's lookups fall back to SQLite while its part of the index is not ready (being built).
 */
export class ServingIndex {
  // Replaced together by `attach` when a long build maps the file afresh (remap).
  private env!: RootDatabase;
  private dbs!: Record<Entity, EntityDbs>;
  private meta!: Database<unknown, string>;
  private flags!: Database<Buffer, string>;
  private intents!: Database<Intent, string>;
  /** The identifier kinds in the order a build writes them: their keys' order (inKeyOrder). */
  private readonly kindOrder: number[];

  private constructor(
    env: RootDatabase,
    private readonly options: RootDatabaseOptionsWithPath,
    private readonly source: IndexSource,
    private readonly kindCodes: Readonly<Record<IdentifierKind, number>>,
  ) {
    this.attach(env);
    this.kindOrder = inKeyOrder(Object.values(kindCodes));
  }

  private attach(env: RootDatabase): void {
    const entity = (name: Entity): EntityDbs => ({
      records: env.openDB<Buffer, string>({ name, encoding: 'binary' }),
      idents: env.openDB<string, string>({ name: `${name}_ident`, encoding: 'string' }),
    });
    this.env = env;
    this.dbs = { people: entity('people'), companies: entity('companies') };
    this.meta = env.openDB({ name: 'meta' });
    this.flags = env.openDB<Buffer, string>({ name: 'flags', encoding: 'binary' });
    this.intents = env.openDB<Intent, string>({ name: 'intents' });
  }

  /**
   * Closes the environment and opens it again, which unmaps the pages of the file this process had mapped.
   * A build reads back pages it has just written (LMDB finds where to append through its map), and the
   * kernel maps their neighbours with them: a few hundred kilobytes a transaction, counted in the process's
   * resident memory until the file is unmapped. Only between transactions, with no read open: this index
   * writes synchronously, so the close is done when it returns.
   */
  private remap(): void {
    void this.env.close();
    this.reopen();
  }

  /** How many of a write's `changes` go in its first transaction: all, or a part in a large index (IN_PARTS). */
  private firstPart(changes: number): number {
    if (changes <= IN_PARTS.changes) return changes;
    const bytes = statSync(this.options.path!, { throwIfNoEntry: false })?.size ?? 0;
    return bytes > IN_PARTS.fromBytes ? IN_PARTS.changes : changes;
  }

  private reopen(): void {
    this.attach(open(this.options));
    this.seen = undefined;
  }

  /**
   * Closes this thread's handle of the environment while `run` runs, which must not use this index, and
   * opens it again after. lmdb keeps one environment per process, unmapped only when its last handle is
   * closed: a build thread's remaps unmap the file only while no other thread holds it.
   */
  async withoutHandle<T>(run: () => Promise<T>): Promise<T> {
    void this.env.close();
    try {
      return await run();
    } finally {
      this.reopen();
    }
  }

  /**
   * Opens (creating) the index at `path` for the store `source` reads.
   * @example const index = ServingIndex.open('./data/enrich.db-index', source, IDENTIFIER_KIND_CODES);
   */
  static open(path: string, source: IndexSource, kindCodes: Readonly<Record<IdentifierKind, number>>) {
    // No fsync: the index is derived from SQLite, which is durable; after a machine crash that lost
    // its last transactions, the generation no longer matches SQLite's and the index is rebuilt.
    const options: RootDatabaseOptionsWithPath = {
      path,
      noSync: true,
      maxDbs: 8,
      compression: false,
      cache: false,
      pageSize: PAGE_SIZE,
    };
    // The index holds every record: its files are made (or tightened) the service's own before LMDB
    // opens them with its own mode.
    const privately = () => {
      const modes = fileModes();
      privateFile(path, modes);
      privateFile(`${path}-lock`, modes);
    };
    privately();
    let env = open(options);
    if ((env.getStats() as { pageSize: number }).pageSize !== PAGE_SIZE) {
      // An index made with other pages (an earlier layout): a page size is fixed when the file is made.
      env.close();
      rmSync(path, { force: true });
      rmSync(`${path}-lock`, { force: true });
      privately();
      env = open(options);
    }
    return new ServingIndex(env, options, source, kindCodes);
  }

  /**
   * The flags as this synchronous run of code sees them. The first read of a run starts a fresh read
   * snapshot (lmdb-js would otherwise renew it only from a timer, up to a millisecond or so later), so a
   * commit made anywhere before the run — a revocation, an import — is seen by it; the flags are then
   * remembered until the run's microtasks, and every read of the run is of that one snapshot.
   */
  private seen: Flags | undefined;
  private readonly forget = () => {
    this.seen = undefined;
  };

  private current(): Flags {
    if (this.seen) return this.seen;
    this.env.resetReadTxn();
    this.seen = this.readFlags(this.flags.getBinaryFast(FLAGS_KEY));
    queueMicrotask(this.forget);
    return this.seen;
  }

  private readFlags(value: Buffer | undefined): Flags {
    return {
      ready: { people: value?.[0] === 1, companies: value?.[1] === 1 },
      keys: value?.readUInt32LE(2) ?? 0,
    };
  }

  /** The flags as the latest snapshot (or this write) has them, bypassing what this run remembers. */
  private flagsNow(): Flags {
    return this.readFlags(this.flags.getBinary(FLAGS_KEY));
  }

  private setFlags(flags: Flags): void {
    const value = Buffer.alloc(6);
    for (const entity of ENTITIES) value[READY_AT[entity]] = flags.ready[entity] ? 1 : 0;
    value.writeUInt32LE(flags.keys >>> 0, 2);
    this.flags.putSync(FLAGS_KEY, value);
  }

  /** Puts an entity's part in service, or takes it out, keeping the other flags. */
  private setReady(entity: Entity, ready: boolean): void {
    const flags = this.flagsNow();
    this.setFlags({ ...flags, ready: { ...flags.ready, [entity]: ready } });
  }

  /** True when an entity's lookups may read the index: built, and not being rebuilt. */
  ready(entity: Entity): boolean {
    return this.current().ready[entity];
  }

  /**
   * Changes whenever API keys change in any process (created, revoked, rotated): what a server's keys
   * held in memory are valid for. Read in the lookup's own snapshot, so a commit before it is seen.
   */
  keysVersion(): number {
    return this.current().keys;
  }

  /**
   * What a lookup serves for one key: the record of an id, or the records carrying an identifier, at
   * most `limit`, in id order. Undefined when the entity's index is not ready, or the identifier is
   * carried by too many records to list: read the store of record instead.
   */
  findRecords(
    entity: Entity,
    kind: IdentifierKind | 'id',
    value: string,
    limit: number,
  ): ServedRecord[] | undefined {
    if (!this.ready(entity)) return undefined;
    return readRecords(this.dbs[entity], kind, value, limit, this.kindCodes[kind as IdentifierKind]);
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
    let committed: { result: T; changes: RecordChange[]; generation?: number; first: number } | undefined;
    try {
      this.env.transactionSync(() => {
        const { result, changes = [], generation } = commit();
        const first = this.firstPart(changes.length);
        committed = { result, changes, generation, first };
        if (scope === 'keys') this.bumpKeys();
        else for (const change of changes.slice(0, first)) applyChange(this.dbs[scope], change);
        if (scope === 'keys' || changes.length <= first) this.endWrite(intent, generation);
      });
      const { changes, generation, first } = committed!;
      if (scope !== 'keys' && changes.length > first) {
        this.applyRest(scope, intent, changes.slice(first), generation);
      }
    } catch (error) {
      this.abandon(intent);
      throw committed === undefined ? error : withCommitted(error, committed.result);
    }
    const { result, changes, first } = committed!;
    if (changes.length > first || changes.length >= REMAP_AFTER_CHANGES) this.remap();
    return result;
  }

  /** The end of a write in its last transaction: the index at its generation (or a later write's). */
  private endWrite(intent: string, generation: number | undefined): void {
    if (generation !== undefined) {
      const at = this.meta.get('generation') as number | undefined;
      // A later write may have ended first, between this one's parts.
      if (at === undefined || at < generation) this.meta.putSync('generation', generation);
    }
    this.intents.removeSync(intent);
    this.seen = undefined;
  }

  /**
   * Applies a committed write's changes after its first part, a part a transaction, mapping the file afresh
   * before each (`write` maps it after the last). Another process may have written the same records in
   * between (its write took the lock after this one's commit): each record is read again from the store of
   * record, as a repair does, so that the index ends as SQLite is. The write's intent stands until its last
   * part: a process that dies part-way leaves it to be repaired, whole, by the next reconcile.
   */
  private applyRest(
    scope: Entity,
    intent: string,
    rest: RecordChange[],
    generation: number | undefined,
  ): void {
    for (let start = 0; start < rest.length; start += IN_PARTS.changes) {
      const ids = rest.slice(start, start + IN_PARTS.changes).map((change) => change.id);
      this.remap();
      this.env.transactionSync(() => {
        this.applyAsStored(scope, ids);
        if (start + IN_PARTS.changes >= rest.length) this.endWrite(intent, generation);
      });
    }
  }

  /** Inside the write lock: applies these records as SQLite holds them now (gone when it holds none). */
  private applyAsStored(scope: Entity, ids: readonly string[]): void {
    const rows = new Map(this.source.rows(scope, ids).map((row) => [row.id, row]));
    for (const id of ids) applyChange(this.dbs[scope], { id, row: rows.get(id) });
  }

  /**
   * Takes an entity's part of the index out of service for a bulk load: its lookups read SQLite until
   * `build`, or a build thread under the claim returned (buildClaimed), or, if this process dies, the next
   * reconcile builds it again from SQLite.
   */
  suspend(entity: Entity): string {
    const claim = this.env.transactionSync(() => this.claim(entity));
    this.seen = undefined;
    return claim;
  }

  /**
   * Builds an entity's part from the store of record, fast (sorted reads, appended writes), and puts it in
   * service. Empties the part first: a bulk load's records are not put here as they are written, and a
   * write another process made meanwhile is read back from SQLite with the rest.
   */
  build(entity: Entity): void {
    this.env.transactionSync(() => this.empty(entity));
    const steps = buildEntity(this.part(entity), this.source, entity, this.kindOrder);
    for (let done = 0; !steps.next().done; ) if (++done % REMAP_EVERY === 0) this.remap();
    this.env.transactionSync(() => this.putInService(entity));
    this.seen = undefined;
  }

  /** An entity's part as a build writes it: looked up for each transaction, the environment being remapped. */
  private part(entity: Entity) {
    return () => ({ env: this.env, dbs: this.dbs[entity] });
  }

  /** The build a reconcile started in the background, while it runs. */
  private background: { done: Promise<void>; stop(): void } | undefined;

  /**
   * Builds a claimed entity's part, emptying it first, in transactions of a few milliseconds each (IN_SLICES,
   * beside a server) or as fast as it can (AT_ONCE, for a command), and puts it in service: what a build
   * thread runs. Stops, returning false, once `stopped()` says so, the claim no longer stands (a later claim
   * took the entity over), or `identifiersReady()` says no (see buildEntity).
   */
  buildClaimed(
    entity: Entity,
    claim: string,
    stopped: () => boolean,
    pace: BuildPace = IN_SLICES,
    identifiersReady: () => boolean = () => true,
  ): boolean {
    const owned = () => {
      const state = this.meta.get(`state:${entity}`) as State | undefined;
      return !stopped() && typeof state === 'object' && state.claim === claim;
    };
    let cleared = false;
    this.env.transactionSync(() => {
      if (!owned()) return;
      this.empty(entity);
      cleared = true;
    });
    if (!cleared) return false;
    const steps = buildEntity(
      this.part(entity),
      this.source,
      entity,
      this.kindOrder,
      pace,
      owned,
      identifiersReady,
    );
    let step = steps.next();
    for (let done = 0; !step.done; step = steps.next()) if (++done % REMAP_EVERY === 0) this.remap();
    if (!step.value) return false;
    let inService = false;
    this.env.transactionSync(() => {
      if (!owned()) return;
      this.putInService(entity);
      inService = true;
    });
    this.seen = undefined;
    return inService;
  }

  /** After a build in the background ended: what it did not put in service goes to the next reconcile. */
  private abandonClaims(claims: Claim[]): void {
    try {
      this.env.transactionSync(() => {
        for (const { entity, claim } of claims) {
          const state = this.meta.get(`state:${entity}`) as State | undefined;
          if (typeof state === 'object' && state.claim === claim)
            this.meta.putSync(`state:${entity}`, { building: { pid: 0, started: 0 } } satisfies State);
        }
      });
    } catch {
      // Left building by this process: a later process finds it dead and builds it.
    }
    this.seen = undefined;
  }

  /**
   * Inside the write lock: the entity's part is ready for lookups; with every part ready, the index is at
   * the store's generation.
   */
  private putInService(entity: Entity): void {
    this.meta.putSync(`state:${entity}`, 'ready' satisfies State);
    this.setReady(entity, true);
    if (ENTITIES.every((e) => this.meta.get(`state:${e}`) === 'ready')) {
      this.meta.putSync('generation', this.source.generation());
    }
  }

  /**
   * Under the write lock: marks an entity as being built by this process under a new claim. Its part is
   * out of service until built; every build empties it first (`empty`).
   */
  private claim(entity: Entity): string {
    const claim = randomUUID();
    this.meta.putSync(`state:${entity}`, { building: thisWriter(), claim } satisfies State);
    this.setReady(entity, false);
    return claim;
  }

  /** Under the write lock: removes every record and list of an entity's part, for a build to fill. */
  private empty(entity: Entity): void {
    this.dbs[entity].records.clearSync();
    this.dbs[entity].idents.clearSync();
  }

  /**
   * Brings the index in line with the store of record: repairs the writes of processes that died
   * half-way, and rebuilds what was never built, what a dead process left half-built, and everything
   * when the index is of another layout, belongs to another store or has missed writes (a restored
   * file). Returns what it did; `busy` when a live process is building an entity (its lookups read
   * SQLite meanwhile). With `inBackground` (a server), the build runs off the event loop (a thread of
   * its own) and `rebuilding` is returned at once: lookups read SQLite until each entity is in service.
   */
  reconcile(opts: { inBackground?: BackgroundBuild } = {}): Reconciled {
    this.seen = undefined;
    const glanced = this.glance();
    if (glanced !== undefined) return glanced;
    let busy = false;
    const todo: Entity[] = [];
    const claims: Claim[] = [];
    const repaired = this.env.transactionSync(() => {
      const fixed = this.repairAbandoned();
      const sameIndex =
        this.meta.get('layout') === LAYOUT && this.meta.get('store') === this.source.storeId();
      for (const entity of ENTITIES) {
        const state = this.meta.get(`state:${entity}`) as State | undefined;
        if (builtByLive(state)) busy = true;
        else if (!sameIndex || state !== 'ready') todo.push(entity);
      }
      // Missed writes (a restored file): only knowable while no live process is building.
      if (!busy && todo.length === 0 && !fixed && this.meta.get('generation') !== this.source.generation()) {
        todo.push(...ENTITIES);
      }
      for (const entity of todo) claims.push({ entity, claim: this.claim(entity) });
      this.meta.putSync('layout', LAYOUT);
      this.meta.putSync('store', this.source.storeId());
      if (!busy && todo.length === 0) this.meta.putSync('generation', this.source.generation());
      return fixed;
    });
    if (claims.length > 0 && opts.inBackground) {
      const run = opts.inBackground.run(claims);
      this.background = run;
      void run.done.finally(() => {
        this.abandonClaims(claims);
        if (this.background === run) this.background = undefined;
      });
      return 'rebuilding';
    }
    for (const entity of todo) this.build(entity);
    if (todo.length > 0) return 'rebuilt';
    if (busy) return 'busy';
    return repaired ? 'repaired' : 'current';
  }

  /**
   * What a look without the write lock finds: `current`, nothing to do; `busy`, a live process builds an
   * entity; or undefined, work for the write lock. A live process's write under way is not work: it holds
   * the lock while it applies its changes (seconds, for a refresh's transaction), and a server that took
   * the lock behind it would stand still meanwhile. Its intent is seen from when it begins until it ends
   * with the index at the store's generation, which it has passed once its SQLite transaction commits.
   */
  private glance(): 'current' | 'busy' | undefined {
    this.env.resetReadTxn();
    const intents = this.intentsNow();
    if (intents.some(abandoned)) return undefined;
    const sameIndex = this.meta.get('layout') === LAYOUT && this.meta.get('store') === this.source.storeId();
    if (!sameIndex) return undefined;
    const { ready } = this.flagsNow();
    let building = false;
    for (const entity of ENTITIES) {
      const state = this.meta.get(`state:${entity}`) as State | undefined;
      if (state === 'ready' && ready[entity]) continue;
      if (!builtByLive(state)) return undefined;
      building = true;
    }
    if (building) return 'busy';
    if (intents.length > 0 || this.meta.get('generation') === this.source.generation()) return 'current';
    return undefined;
  }

  private bumpKeys(): void {
    const flags = this.flagsNow();
    this.setFlags({ ...flags, keys: flags.keys + 1 });
  }

  /** The writes announced and not ended, as the latest snapshot has them. */
  private intentsNow(): Array<{ key: string; value: Intent }> {
    return [...this.intents.getRange()] as Array<{ key: string; value: Intent }>;
  }

  private abandonedIntents(): Array<{ key: string; value: Intent }> {
    return this.intentsNow().filter(abandoned);
  }

  /** Inside the write lock: re-reads from SQLite every record an abandoned write named. */
  private repairAbandoned(): boolean {
    const abandoned = this.abandonedIntents();
    for (const { key, value } of abandoned) {
      const scope = value.entity;
      if (scope === 'keys') {
        this.bumpKeys();
      } else {
        this.applyAsStored(scope, value.ids);
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

  /** True while a build runs in the background (lookups of its entities read SQLite). */
  get rebuilding(): boolean {
    return this.background !== undefined;
  }

  async close(): Promise<void> {
    const background = this.background;
    background?.stop();
    // Its claims are given up by then: abandonClaims runs as `done` settles, before this goes on.
    await background?.done;
    await this.env.close();
  }
}
