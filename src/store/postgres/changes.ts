// The change log on PostgreSQL: entries appended by every record write in its transaction, numbered and
// committed in one order by an advisory lock; readers woken by LISTEN/NOTIFY, from any server.
import pg from 'pg';
import { classifyChange } from '../../changes/classify.js';
import type { ChangeEventType, ClassifiedEvent, LoggedEvent, RemovalReason } from '../../changes/events.js';
import type { Entity } from '../../vocabulary/entities.js';
import { AppendedEvents, type ChangeBounds, type ChangeStore } from '../changes.js';
import { type ChangeRow, changeStatements, eventColumns, loggedEvent, PRUNE_BATCH } from '../sql/changes.js';
import { POSTGRES } from '../sql/spelling.js';
import { ENTITY_TABLES } from '../sql/tables.js';
import { deleteRecords } from './identifiers.js';
import { query } from './pool.js';

const SQL = changeStatements(POSTGRES);

/** The channel every append notifies, in its transaction (so at its commit). */
export const CHANGES_CHANNEL = 'enrich_changes';

/**
 * The advisory lock every writer takes just before it appends, held until it commits: sequence numbers are
 * then drawn and made visible in one order, so a reader that saw an entry never later finds an earlier one
 * appearing behind it. Appending is the last statement of a write, so the lock is held only for its commit.
 */
const APPEND_LOCK = 0x656e_7263_6831; // "enrch1"

/** After a lost LISTEN connection, how long before connecting again. */
const RELISTEN_MS = 1_000;

/** Events appended by this process, by type (the metric enrich_change_events_total). */
const appended = new AppendedEvents();

/**
 * Appends events in the caller's transaction (its last statement): the lock, the notification, and the
 * entries in order, all stamped with one commit time (milliseconds, taken under the lock).
 */
export async function appendChanges(
  client: pg.ClientBase,
  events: readonly ClassifiedEvent[],
): Promise<void> {
  if (events.length === 0) return;
  const types: string[] = [];
  const data: string[] = [];
  for (const event of events) {
    const [type, text] = eventColumns(event);
    types.push(type);
    data.push(text);
  }
  await client.query(`SELECT pg_advisory_xact_lock(${APPEND_LOCK}), pg_notify('${CHANGES_CHANNEL}', '')`);
  await client.query({
    text: `INSERT INTO change_log (at, type, data)
           SELECT (SELECT date_trunc('milliseconds', clock_timestamp())), e.type, e.data
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS e(type, data, n) ORDER BY e.n`,
    values: [types, data],
  });
  for (const event of events) appended.add(event.type, 1);
}

/** Deletes records in the caller's transaction and logs each removal with `reason`; how many existed. */
export async function removeRecords(
  client: pg.PoolClient,
  entity: Entity,
  ids: string[],
  reason: RemovalReason,
  alongside: () => Promise<void> = async () => {},
): Promise<number> {
  const removed = new Set(await deleteRecords(client, ENTITY_TABLES[entity], ids));
  await alongside();
  const logged = new Set<string>();
  const events: ClassifiedEvent[] = [];
  for (const id of ids) {
    if (!removed.has(id) || logged.has(id)) continue;
    logged.add(id);
    events.push(...classifyChange({ entity, id, before: '', after: null, reason }).events);
  }
  await appendChanges(client, events);
  return removed.size;
}

/** The change log's reads, its pruning, and the LISTEN connection that wakes this process's watchers. */
export class PostgresChanges implements ChangeStore {
  private readonly listeners = new Set<() => void>();
  private listening: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly primary: pg.Pool,
    private readonly url: string,
    private readonly onError?: (err: Error) => void,
  ) {}

  /** Read on the primary: a reader woken by a notification finds the entry that caused it. */
  async readChanges(
    after: number,
    limit: number,
    types?: readonly ChangeEventType[],
  ): Promise<LoggedEvent[]> {
    const { rows } = await query<ChangeRow>(
      this.primary,
      types === undefined
        ? { name: 'enrich_changes_read', text: SQL.read, values: [after, limit] }
        : { name: 'enrich_changes_read_types', text: SQL.readTypes, values: [after, limit, types] },
    );
    return rows.map(loggedEvent);
  }

  async changeBounds(): Promise<ChangeBounds> {
    const { rows } = await query<{ first: string; last: string }>(this.primary, { text: SQL.bounds });
    return { first: Number(rows[0]?.first ?? 0), last: Number(rows[0]?.last ?? 0) };
  }

  watchChanges(listener: () => void): () => void {
    this.listeners.add(listener);
    if (!this.listening && !this.retry) this.listen();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.unlisten();
    };
  }

  private wake(): void {
    for (const listener of this.listeners) queueMicrotask(listener);
  }

  /** One connection of its own (a pooled one would lose its LISTEN when returned), kept while watched. */
  private listen(): void {
    const client = new pg.Client({ connectionString: this.url, keepAlive: true });
    this.listening = client;
    const lost = (err?: Error) => {
      if (this.listening !== client) return;
      this.listening = undefined;
      client.end().catch(() => {});
      if (err) this.onError?.(err);
      // What was committed while no one listened is found by the readers' next read.
      this.wake();
      if (this.closed || this.listeners.size === 0) return;
      this.retry = setTimeout(() => {
        this.retry = undefined;
        if (!this.closed && this.listeners.size > 0) this.listen();
      }, RELISTEN_MS);
      this.retry.unref();
    };
    client.on('notification', () => this.wake());
    client.on('error', lost);
    client.on('end', () => lost());
    client
      .connect()
      .then(() => client.query(`LISTEN ${CHANGES_CHANNEL}`))
      .then(() => this.wake())
      .catch(lost);
  }

  private unlisten(): void {
    clearTimeout(this.retry);
    this.retry = undefined;
    const client = this.listening;
    this.listening = undefined;
    client?.end().catch(() => {});
  }

  /** One short transaction a batch, so that writers never wait for long. */
  async pruneChanges(before: Date): Promise<number> {
    let pruned = 0;
    for (;;) {
      const { rowCount } = await query(this.primary, {
        name: 'enrich_changes_prune',
        text: SQL.prune,
        values: [before.toISOString(), PRUNE_BATCH],
      });
      pruned += rowCount ?? 0;
      if ((rowCount ?? 0) < PRUNE_BATCH) return pruned;
    }
  }

  changesAppended(): ReadonlyMap<ChangeEventType, number> {
    return appended.counts;
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.unlisten();
  }
}
