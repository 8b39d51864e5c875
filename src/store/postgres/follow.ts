// The follower of a server's local index (../local/local-index.ts): builds it from a consistent snapshot of
// PostgreSQL, then applies the change log from a cursor kept in the index, woken by LISTEN/NOTIFY (with a
// poll as a fallback); the API keys travel by the store's keys version.
import type pg from 'pg';
import type { LoggedEvent } from '../../changes/events.js';
import { messageOf } from '../../errors.js';
import { ENTITIES, type Entity } from '../../vocabulary/entities.js';
import type { StoredKey } from '../keys.js';
import type { EntityChange, LocalIndex } from '../local/local-index.js';
import { CROWDED, MAX_LISTED } from '../serving/id-lists.js';
import type { SourceRow } from '../serving/source.js';
import { KEY_COLUMNS } from '../sql/keys.js';
import { ENTITY_TABLES } from '../sql/tables.js';
import type { LocalIndexStatus } from '../store.js';
import type { StoreLog } from '../store-log.js';
import type { PostgresChanges } from './changes.js';
import { type KeyRow, toStoredKey } from './keys.js';
import { inTransaction, query } from './pool.js';

/** How often the follower looks without being woken (a lost notification, a lost LISTEN connection). */
export const POLL_MS = 500;
/** Change-log entries read per round trip. */
const EVENT_PAGE = 2_000;
/** Records applied per write transaction, so that lookups run between them. */
const APPLY_CHUNK = 500;
/** Rows a build reads per FETCH, and writes per transaction. */
const RECORD_PAGE = 1_000;
const IDENT_PAGE = 5_000;
/** How long a write waits for its process's index to show it (read-your-writes); then it returns anyway. */
const CATCH_UP_MS = 2_000;

/** Where the follower says what it does: once when a failure starts and once when it ends. */
export type FollowLog = StoreLog;

/** The columns of a record as the index keeps it: its identifiers as a JSON array of `'<kind>:<value>'` keys. */
const ROW_COLUMNS = 'id, etag, body, array_to_json(idents)::text AS idents';

/** The record an event is about: each event names one person or one company. */
function eventRecord(event: LoggedEvent): { entity: Entity; id: string } | undefined {
  const data = event.data as { person_id?: string; company_id?: string | null };
  if (event.type.startsWith('person.'))
    return data.person_id ? { entity: 'people', id: data.person_id } : undefined;
  return data.company_id ? { entity: 'companies', id: data.company_id } : undefined;
}

const STORE_META = 'SELECT store_id, keys_version::text AS keys_version FROM store_meta';
/** The log's last entry, and the highest number its sequence ever gave (entries pruned since included). */
const LOG_MARKS = `SELECT coalesce(max(seq), 0)::text AS last,
  coalesce(pg_sequence_last_value('change_log_seq_seq'::regclass), 0)::text AS high FROM change_log`;

/**
 * Reads a cursor to its end, `page` rows a FETCH, each page given to `use`; the next FETCH is sent before
 * a page is used, so that PostgreSQL reads while the page is written. Closes the cursor.
 */
async function fetchAll<R extends pg.QueryResultRow>(
  client: pg.PoolClient,
  cursor: string,
  page: number,
  use: (rows: R[]) => void,
): Promise<void> {
  const fetch = () => client.query<R>(`FETCH ${page} FROM ${cursor}`);
  for (let next = fetch(); ; ) {
    const { rows } = await next;
    if (rows.length === 0) break;
    next = fetch();
    use(rows);
  }
  await client.query(`CLOSE ${cursor}`);
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const yieldToLookups = () => new Promise<void>((resolve) => setImmediate(resolve));

export class PostgresFollower {
  private running = false;
  private again = false;
  private closed = false;
  private checked = false;
  private resumed = false;
  private timer: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;
  private readonly now: Omit<LocalIndexStatus, 'serving'> = {
    phase: 'starting',
    problem: undefined,
    appliedAt: undefined,
  };
  private idle: Promise<void> = Promise.resolve();

  constructor(
    private readonly primary: pg.Pool,
    private readonly changes: PostgresChanges,
    private readonly index: LocalIndex,
    private readonly log: FollowLog,
  ) {}

  /** Starts following: at once, on every notification, and every POLL_MS. */
  start(): void {
    this.unwatch = this.changes.watchChanges(() => this.kick());
    this.timer = setInterval(() => this.kick(), POLL_MS);
    this.timer.unref();
    this.kick();
  }

  status(): LocalIndexStatus {
    return { ...this.now, serving: this.index.ready() };
  }

  /** A round now, or right after the one running. */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.idle = this.round().finally(() => {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  private async round(): Promise<void> {
    try {
      const { rows } = await query<{ store_id: string; keys_version: string }>(this.primary, {
        text: STORE_META,
      });
      const store = { id: rows[0]!.store_id, keysVersion: Number(rows[0]!.keys_version) };
      this.index.serveStore(store.id);
      if (this.index.lead()) await this.follow(store);
      else this.now.phase = 'standby';
      this.ended();
    } catch (error) {
      this.failed(error);
    }
  }

  private failed(error: unknown): void {
    const reason = messageOf(error);
    // A round after a failure checks again that the log still holds the index's cursor.
    this.checked = false;
    if (this.now.problem === undefined)
      this.log.warn(`local index: cannot follow PostgreSQL (${reason}); lookups answer from the local index`);
    this.now.problem = reason;
  }

  private ended(): void {
    if (this.now.problem === undefined) return;
    this.now.problem = undefined;
    this.log.info('local index: following PostgreSQL again');
  }

  /** Builds the index when it must be, then applies what the log holds past its cursor. */
  private async follow(store: { id: string; keysVersion: number }): Promise<void> {
    let state = this.index.state();
    // An index this process finds on start may have missed writes: out of service until caught up.
    if (!this.resumed) {
      this.index.setReady(false);
      this.resumed = true;
    }
    if (
      !state.built ||
      state.store !== store.id ||
      (!this.checked && (await this.fellBehind(state.cursor)))
    ) {
      this.now.phase = 'building';
      await this.build(store.id);
      state = this.index.state();
    }
    this.checked = true;
    for (let cursor = state.cursor; ; ) {
      const events = await this.changes.readChanges(cursor, EVENT_PAGE);
      if (events.length === 0) break;
      cursor = events.at(-1)!.seq;
      await this.applyEvents(events, cursor);
      this.now.appliedAt = events.at(-1)!.at;
      if (events.length < EVENT_PAGE) break;
    }
    if (store.keysVersion !== state.keysVersion) await this.loadKeys();
    if (!this.index.ready()) {
      this.index.setReady(true);
      this.log.info('local index: built and current; lookups answer from it');
    }
    this.now.phase = 'following';
  }

  /** True when entries past `cursor` were pruned from the log (or the log is of another numbering). */
  private async fellBehind(cursor: number): Promise<boolean> {
    const bounds = await this.changes.changeBounds();
    if (bounds.first > 0) return cursor < bounds.first - 1 || cursor > bounds.last;
    const { rows } = await query<{ high: string }>(this.primary, { text: LOG_MARKS });
    return Number(rows[0]!.high) > cursor;
  }

  /** The records the events name, read now, applied in chunks; the cursor moves with the last chunk. */
  private async applyEvents(events: readonly LoggedEvent[], cursor: number): Promise<void> {
    const named: Record<Entity, Set<string>> = { people: new Set(), companies: new Set() };
    for (const event of events) {
      const record = eventRecord(event);
      if (record) named[record.entity].add(record.id);
    }
    const changes: EntityChange[] = [];
    for (const entity of ENTITIES) {
      const ids = [...named[entity]];
      if (ids.length === 0) continue;
      const { rows } = await query<SourceRow>(this.primary, {
        name: `enrich_local_${entity}_rows`,
        text: `SELECT ${ROW_COLUMNS} FROM ${ENTITY_TABLES[entity].records} WHERE id = ANY($1::text[])`,
        values: [ids],
      });
      const found = new Map(rows.map((row) => [row.id, row]));
      for (const id of ids) changes.push({ entity, id, row: found.get(id) });
    }
    for (let at = 0; ; at += APPLY_CHUNK) {
      const last = at + APPLY_CHUNK >= changes.length;
      this.index.apply(changes.slice(at, at + APPLY_CHUNK), last ? cursor : undefined);
      if (last) return;
      await yieldToLookups();
    }
  }

  /** Every key and every hash that names one, read in one snapshot with the version they are of. */
  private async loadKeys(client?: pg.PoolClient): Promise<void> {
    const read = async (c: pg.PoolClient) => {
      const meta = await c.query<{ keys_version: string }>(STORE_META);
      const keys = await c.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys`);
      const retired = await c.query<{ hash: string; key_id: string }>(
        'SELECT hash, key_id FROM retired_key_hashes',
      );
      return {
        version: Number(meta.rows[0]!.keys_version),
        keys: keys.rows.map(toStoredKey),
        retired: retired.rows.map((row) => [row.hash, row.key_id] as const),
      };
    };
    const loaded: { version: number; keys: StoredKey[]; retired: Array<readonly [string, string]> } = client
      ? await read(client)
      : await inTransaction(this.primary, async (c) => {
          await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
          return read(c);
        });
    this.index.replaceKeys(loaded.keys, loaded.retired, loaded.version);
  }

  /**
   * Copies the store into the emptied index from one snapshot (REPEATABLE READ), records in id order and
   * identifier lists in (kind, value, id) order, streamed by cursors; the index's cursor is the log's last
   * entry in that snapshot (entries are numbered in commit order, changes.ts), so following resumes there.
   */
  private async build(storeId: string): Promise<void> {
    this.index.startBuild(storeId);
    const started = Date.now();
    this.log.info('local index: building from PostgreSQL; lookups read PostgreSQL meanwhile');
    // Two connections in one snapshot (the first exports it, the second takes it): PostgreSQL sorts the
    // identifiers on one while the records stream in on the other.
    const cursor = await inTransaction(this.primary, async (records) => {
      await records.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const marks = await records.query<{ last: string; snapshot: string }>(
        `SELECT marks.last, pg_export_snapshot() AS snapshot FROM (${LOG_MARKS}) marks`,
      );
      const { last, snapshot } = marks.rows[0]!;
      await inTransaction(this.primary, async (identifiers) => {
        await identifiers.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        await identifiers.query(`SET TRANSACTION SNAPSHOT '${snapshot.replace(/'/g, "''")}'`);
        for (const entity of ENTITIES) {
          await Promise.all([this.copyRecords(records, entity), this.copyIdentifiers(identifiers, entity)]);
        }
      });
      await this.loadKeys(records);
      return Number(last);
    });
    this.index.finishBuild(cursor);
    this.log.info(`local index: built in ${((Date.now() - started) / 1000).toFixed(1)} s; catching up`);
  }

  private async copyRecords(client: pg.PoolClient, entity: Entity): Promise<void> {
    await client.query(
      `DECLARE local_records NO SCROLL CURSOR FOR
       SELECT ${ROW_COLUMNS} FROM ${ENTITY_TABLES[entity].records} ORDER BY id`,
    );
    await fetchAll<SourceRow>(client, 'local_records', RECORD_PAGE, (rows) =>
      this.index.putRecords(entity, rows),
    );
  }

  /** Each identifier's ids, in id order, as one list (CROWDED past MAX_LISTED). */
  private async copyIdentifiers(client: pg.PoolClient, entity: Entity): Promise<void> {
    const t = ENTITY_TABLES[entity];
    await client.query(
      `DECLARE local_idents NO SCROLL CURSOR FOR
       SELECT i.kind, i.value, r.id FROM ${t.identifiers} i JOIN ${t.records} r ON r.rid = i.rid
       ORDER BY i.kind, i.value, r.id`,
    );
    let key: string | undefined;
    let ids: string[] = [];
    let lists: Array<readonly [string, string]> = [];
    const close = () => {
      if (key !== undefined) lists.push([key, ids.length > MAX_LISTED ? CROWDED : ids.join('\n')]);
    };
    await fetchAll<{ kind: number; value: string; id: string }>(
      client,
      'local_idents',
      IDENT_PAGE,
      (rows) => {
        for (const row of rows) {
          const next = `${row.kind}:${row.value}`;
          if (next !== key) {
            close();
            key = next;
            ids = [];
          }
          if (ids.length <= MAX_LISTED) ids.push(row.id);
        }
        this.index.putIdentLists(entity, lists);
        lists = [];
      },
    );
    close();
    this.index.putIdentLists(entity, lists);
  }

  /**
   * Resolves once this process's index shows every change committed before the call (a write's own, so
   * that the server that made it serves it at once), or after CATCH_UP_MS; at once while the index is
   * not in service (lookups read PostgreSQL then).
   */
  async caughtUp(): Promise<void> {
    if (this.closed || !this.index.ready()) return;
    const { rows } = await query<{ last: string; keys_version: string }>(this.primary, {
      text: `SELECT marks.last, meta.keys_version FROM (${LOG_MARKS}) marks, (${STORE_META}) meta`,
    });
    const last = Number(rows[0]!.last);
    const keys = Number(rows[0]!.keys_version);
    this.kick();
    for (const deadline = Date.now() + CATCH_UP_MS; Date.now() < deadline; await delay(2)) {
      const state = this.index.state();
      if (!this.index.ready() || (state.cursor >= last && state.keysVersion >= keys)) return;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.unwatch?.();
    await this.idle.catch(() => {});
    if (this.now.phase !== 'standby') this.index.resign();
  }
}
