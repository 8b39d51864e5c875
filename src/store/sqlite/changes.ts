// The change log on SQLite: entries appended by the record writes (./record-writes.ts, ./bulk.ts) in their
// own transactions; one writer at a time, so sequence numbers commit in order.
import type Database from 'better-sqlite3';
import type { ChangeEventType, ClassifiedEvent, LoggedEvent } from '../../changes/events.js';
import type { Entity } from '../../vocabulary/entities.js';
import type { ChangeBounds, ChangeStore } from '../changes.js';
import { AppendedEvents } from '../changes.js';
import { type ChangeRow, changeStatements, eventColumns, loggedEvent, PRUNE_BATCH } from '../sql/changes.js';
import { SQLITE } from '../sql/spelling.js';
import { ENTITY_TABLES } from '../sql/tables.js';
import { numbered } from './numbered.js';
import type { TurnSnapshot } from './snapshot.js';

const SQL = changeStatements(SQLITE);

/** How often a watched log checks for entries other processes committed (one B-tree page read). */
const POLL_MS = 200;

const CREATED = {
  people: { type: 'person.created', key: 'person_id' },
  companies: { type: 'company.created', key: 'company_id' },
} as const;

function prepare(db: Database.Database) {
  const created = (entity: Entity) =>
    db.prepare<[string, number]>(
      `INSERT INTO change_log (at, type, data)
       SELECT ?, '${CREATED[entity].type}', json_object('${CREATED[entity].key}', id)
       FROM ${ENTITY_TABLES[entity].records} WHERE rid > ? ORDER BY rid`,
    );
  return {
    append: db.prepare<[string, string, string]>('INSERT INTO change_log (at, type, data) VALUES (?, ?, ?)'),
    created: { people: created('people'), companies: created('companies') },
    read: db.prepare<[Record<number, unknown>], ChangeRow>(SQL.read),
    readTypes: db.prepare<[Record<number, unknown>], ChangeRow>(SQL.readTypes),
    bounds: db.prepare<[], ChangeBounds>(SQL.bounds),
    last: db.prepare<[], number>(SQL.last).pluck(),
    prune: db.prepare<[Record<number, unknown>]>(SQL.prune),
  };
}

/**
 * The change log of one connection. Appends run inside the caller's write transaction; `committed` (called
 * after it commits) wakes this process's watchers, and a watched log polls for other processes' commits.
 */
export class SqliteChanges implements ChangeStore {
  private readonly statements: ReturnType<typeof prepare>;
  private readonly listeners = new Set<() => void>();
  private poller: NodeJS.Timeout | undefined;
  private seen = 0;
  private pending = false;
  /** Events appended by this process, by type (the metric enrich_change_events_total). */
  readonly appended = new AppendedEvents();

  constructor(
    private readonly db: Database.Database,
    private readonly snapshot: TurnSnapshot,
  ) {
    this.statements = prepare(db);
  }

  changesAppended(): ReadonlyMap<ChangeEventType, number> {
    return this.appended.counts;
  }

  /** Appends events in the caller's transaction, all with its commit time `at`. */
  append(events: readonly ClassifiedEvent[], at: string): void {
    for (const event of events) {
      const [type, data] = eventColumns(event);
      this.statements.append.run(at, type, data);
      this.appended.add(event.type, 1);
    }
    if (events.length > 0) this.pending = true;
  }

  /**
   * Appends a created event for every record of `entity` after rid `afterRid`, in rid order: a bulk load's
   * new records, in one statement, with no JSON handled in JavaScript.
   */
  appendCreated(entity: Entity, afterRid: number, at: string): number {
    const { changes } = this.statements.created[entity].run(at, afterRid);
    this.appended.add(CREATED[entity].type, changes);
    if (changes > 0) this.pending = true;
    return changes;
  }

  /** After a write transaction ended (committed or not): wakes the watchers if it appended. */
  committed(): void {
    if (!this.pending) return;
    this.pending = false;
    this.wake();
  }

  private wake(): void {
    for (const listener of this.listeners) queueMicrotask(listener);
  }

  async readChanges(
    after: number,
    limit: number,
    types?: readonly ChangeEventType[],
  ): Promise<LoggedEvent[]> {
    const rows =
      types === undefined
        ? this.statements.read.all(numbered(after, limit))
        : this.statements.readTypes.all(numbered(after, limit, JSON.stringify(types)));
    return rows.map(loggedEvent);
  }

  async changeBounds(): Promise<ChangeBounds> {
    return this.statements.bounds.get()!;
  }

  watchChanges(listener: () => void): () => void {
    this.listeners.add(listener);
    if (!this.poller) {
      this.seen = this.statements.last.get()!;
      this.poller = setInterval(() => this.poll(), POLL_MS);
      this.poller.unref();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0) return;
      clearInterval(this.poller);
      this.poller = undefined;
    };
  }

  /** Wakes the watchers when the log grew since the last look (another process's commit, or this one's). */
  private poll(): void {
    if (!this.db.open) return;
    const last = this.statements.last.get()!;
    if (last === this.seen) return;
    this.seen = last;
    this.wake();
  }

  /** One short transaction a batch, yielding between them, so that writes and lookups go on meanwhile. */
  async pruneChanges(before: Date): Promise<number> {
    const cutoff = before.toISOString();
    let pruned = 0;
    for (;;) {
      if (!this.db.open) return pruned; // the store closed between batches
      this.snapshot.end();
      const { changes } = this.statements.prune.run(numbered(cutoff, PRUNE_BATCH));
      pruned += changes;
      if (changes < PRUNE_BATCH) return pruned;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Stops polling (the store closes). */
  close(): void {
    clearInterval(this.poller);
    this.poller = undefined;
    this.listeners.clear();
  }
}
