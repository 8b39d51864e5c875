// The webhooks role on SQLite: endpoints, deliveries and the dispatcher's cursor in the store's file. One
// process writes at a time, so a claim is a plain transaction; leases still keep a delivery from being
// attempted twice by the processes of one server, and let a killed one's claims pass to the next.
import type Database from 'better-sqlite3';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryFilter,
  type DisabledReason,
  deliveryId,
  deliverySeq,
  type EndpointChanges,
  healthChanges,
  type NewDelivery,
  oldestOfEachFirst,
  type StoredEndpoint,
  type WebhookStore,
} from '../webhooks.js';
import type { TurnSnapshot } from './snapshot.js';

/** Migration: the webhooks' tables (contract §8). Times are ISO-8601 text, which sorts as time does. */
export const WEBHOOKS_MIGRATION = `
  CREATE TABLE IF NOT EXISTS webhook_endpoints (
    id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    url TEXT NOT NULL,
    types TEXT NOT NULL,
    watchlist TEXT,
    description TEXT,
    disabled_reason TEXT,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_expires_at TEXT,
    after_seq INTEGER NOT NULL,
    failing_since TEXT,
    created_at TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS webhook_endpoints_key ON webhook_endpoints (key_id);
  CREATE TABLE IF NOT EXISTS webhook_deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    endpoint_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts TEXT NOT NULL DEFAULT '[]',
    next_attempt_at TEXT,
    lease_until TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, seq);
  CREATE INDEX IF NOT EXISTS webhook_deliveries_pending ON webhook_deliveries (endpoint_id, seq) WHERE status = 'pending';
  CREATE INDEX IF NOT EXISTS webhook_deliveries_leased ON webhook_deliveries (endpoint_id, lease_until)
    WHERE status = 'pending' AND lease_until IS NOT NULL;
  CREATE TABLE IF NOT EXISTS webhook_dispatch (
    only INTEGER PRIMARY KEY CHECK (only = 1),
    cursor INTEGER NOT NULL
  );
  INSERT OR IGNORE INTO webhook_dispatch (only, cursor) VALUES (1, 0);
`;

/**
 * Migration: who holds a delivery's lease, so that one process at a time holds an endpoint's deliveries and
 * attempts them from a queue of its own (see claimDeliveries).
 */
export const WEBHOOK_CLAIMER_MIGRATION = `
  ALTER TABLE webhook_deliveries ADD COLUMN claimer TEXT;
  -- A claimer holds up to a thousand of an endpoint's oldest pending deliveries: the claim's scans pass over
  -- them in the indexes alone, without reading each row.
  DROP INDEX IF EXISTS webhook_deliveries_pending;
  CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, seq, next_attempt_at, lease_until)
    WHERE status = 'pending';
  DROP INDEX IF EXISTS webhook_deliveries_leased;
  CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (endpoint_id, lease_until, claimer)
    WHERE status = 'pending' AND lease_until IS NOT NULL;
`;

interface EndpointRow extends Omit<StoredEndpoint, 'types' | 'disabled'> {
  types: string;
}

interface DeliveryRow extends Omit<Delivery, 'id' | 'attempts'> {
  seq: number;
  attempts: string;
}

const toEndpoint = (row: EndpointRow): StoredEndpoint => ({
  ...row,
  types: JSON.parse(row.types) as string[],
  disabled: row.disabled_reason !== null,
  disabled_reason: row.disabled_reason as DisabledReason | null,
});

const toDelivery = ({ seq, attempts, ...row }: DeliveryRow): Delivery => ({
  id: deliveryId(seq),
  ...row,
  attempts: JSON.parse(attempts) as DeliveryAttempt[],
});

const ENDPOINT_COLUMNS = `id, key_id, url, types, watchlist, description, disabled_reason, secret, previous_secret,
  previous_expires_at, after_seq, failing_since, created_at`;
const DELIVERY_COLUMNS =
  'seq, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at';

function prepare(db: Database.Database) {
  return {
    create:
      db.prepare(`INSERT INTO webhook_endpoints (${ENDPOINT_COLUMNS}) VALUES (@id, @key_id, @url, @types,
      @watchlist, @description, @disabled_reason, @secret, @previous_secret, @previous_expires_at, @after_seq,
      @failing_since, @created_at)`),
    get: db.prepare<[string], EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ?`),
    all: db.prepare<[], EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY created_at, id`,
    ),
    byKey: db.prepare<[string], EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE key_id = ? ORDER BY created_at, id`,
    ),
    remove: db.prepare<[string]>('DELETE FROM webhook_endpoints WHERE id = ?'),
    removeDeliveries: db.prepare<[string]>('DELETE FROM webhook_deliveries WHERE endpoint_id = ?'),
    rotate: db.prepare(`UPDATE webhook_endpoints SET previous_secret = secret, secret = @secret,
      previous_expires_at = @expires WHERE id = @id`),
    cursor: db.prepare<[], number>('SELECT cursor FROM webhook_dispatch').pluck(),
    moveCursor: db.prepare<[number, number]>('UPDATE webhook_dispatch SET cursor = ? WHERE cursor = ?'),
    insert: db.prepare<[Record<string, unknown>], { seq: number }>(`INSERT INTO webhook_deliveries
      (endpoint_id, event_id, event_type, body, status, next_attempt_at, lease_until, created_at)
      VALUES (@endpoint_id, @event_id, @event_type, @body, 'pending', @now, @lease, @now) RETURNING seq`),
    enabled: db.prepare<[], string>('SELECT id FROM webhook_endpoints WHERE disabled_reason IS NULL').pluck(),
    leased: db.prepare<[Record<string, unknown>], { mine: number; others: number }>(`SELECT
        count(*) FILTER (WHERE claimer IS @claimer) AS mine, count(*) FILTER (WHERE claimer IS NOT @claimer) AS others
      FROM webhook_deliveries WHERE endpoint_id = @endpoint AND status = 'pending' AND lease_until > @now`),
    due: db
      .prepare<[Record<string, unknown>], number>(`SELECT seq FROM webhook_deliveries
        WHERE endpoint_id = @endpoint AND status = 'pending' AND next_attempt_at <= @now
          AND (lease_until IS NULL OR lease_until <= @now) ORDER BY seq LIMIT @limit`)
      .pluck(),
    lease: db.prepare<
      [Record<string, unknown>],
      ClaimedRow
    >(`UPDATE webhook_deliveries SET lease_until = @lease, claimer = @claimer
      WHERE seq IN (SELECT value FROM json_each(@seqs))
      RETURNING seq, endpoint_id, event_id, event_type, body, json_array_length(attempts) AS attempts`),
    release: db.prepare(`UPDATE webhook_deliveries SET lease_until = NULL, claimer = NULL
      WHERE seq IN (SELECT value FROM json_each(@seqs)) AND claimer = @claimer AND status = 'pending'`),
    attempt:
      db.prepare(`UPDATE webhook_deliveries SET attempts = json_insert(attempts, '$[#]', json(@attempt)),
      status = @status, next_attempt_at = @next, lease_until = NULL, claimer = NULL WHERE seq = @seq`),
    // Only when it changes something: a healthy endpoint's row is not written at every batch of attempts.
    health: db.prepare(`UPDATE webhook_endpoints SET
      failing_since = CASE WHEN @reset THEN @failing_from ELSE coalesce(failing_since, @failing_from) END,
      disabled_reason = coalesce(disabled_reason, @disable)
      WHERE id = @endpoint_id AND (failing_since IS NOT CASE WHEN @reset THEN @failing_from
        ELSE coalesce(failing_since, @failing_from) END OR disabled_reason IS NOT coalesce(disabled_reason, @disable))`),
    deliveries: db.prepare<[Record<string, unknown>], DeliveryRow>(`SELECT ${DELIVERY_COLUMNS}
      FROM webhook_deliveries WHERE endpoint_id = @endpoint AND seq > @after
        AND (@status IS NULL OR status = @status) ORDER BY seq LIMIT @limit`),
    retry: db.prepare(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = @now,
      lease_until = NULL WHERE seq = @seq AND endpoint_id = @endpoint`),
    backlog: db.prepare<[], { pending: number; oldest: string | null }>(`SELECT count(*) AS pending,
      min(d.created_at) AS oldest FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.status = 'pending' AND e.disabled_reason IS NULL`),
  };
}

interface ClaimedRow extends NewDelivery {
  seq: number;
  attempts: number;
}

const toClaimed = ({ seq, ...row }: ClaimedRow): ClaimedDelivery => ({ id: deliveryId(seq), ...row });

export class SqliteWebhooks implements WebhookStore {
  private readonly statements: ReturnType<typeof prepare>;
  private readonly enqueueOnce: (from: number, to: number, deliveries: NewDelivery[], now: string) => boolean;
  private readonly updateOnce: (id: string, changes: EndpointChanges) => boolean;
  private readonly claimOnce: (
    now: string,
    lease: string,
    limit: number,
    per: number,
    claimer: string | null,
  ) => ClaimedRow[];
  private readonly recordOnce: (records: readonly AttemptRecord[]) => void;

  constructor(
    private readonly db: Database.Database,
    private readonly snapshot: TurnSnapshot,
  ) {
    const statements = prepare(db);
    this.statements = statements;
    this.enqueueOnce = db.transaction((from: number, to: number, deliveries: NewDelivery[], now: string) => {
      if (statements.moveCursor.run(to, from).changes === 0) return false;
      for (const delivery of deliveries) statements.insert.get({ ...delivery, now, lease: null });
      return true;
    });
    // Endpoint by endpoint, each by an index: its leased ones counted and its oldest due ones found; then
    // those chosen leased in one statement. Only reads when nothing is due: no write lock taken.
    this.claimOnce = db.transaction(
      (now: string, lease: string, limit: number, per: number, claimer: string | null) => {
        const due: number[][] = [];
        for (const endpoint of statements.enabled.all()) {
          const { mine, others } = statements.leased.get({ endpoint, now, claimer })!;
          const room = others > 0 ? 0 : Math.min(per - mine, limit);
          if (room > 0) due.push(statements.due.all({ endpoint, now, limit: room }));
        }
        const chosen = oldestOfEachFirst(due, limit);
        if (chosen.length === 0) return [];
        return statements.lease.all({ seqs: JSON.stringify(chosen), lease, claimer });
      },
    );
    this.recordOnce = db.transaction((records: readonly AttemptRecord[]) => {
      for (const { delivery, attempt, outcome } of records) {
        statements.attempt.run({
          seq: deliverySeq(delivery.id),
          attempt: JSON.stringify(attempt),
          status: outcome.status,
          next: outcome.status === 'pending' ? outcome.next_attempt_at.toISOString() : null,
        });
      }
      for (const change of healthChanges(records))
        statements.health.run({ ...change, reset: change.reset ? 1 : 0 });
    });
    this.updateOnce = db.transaction((id: string, changes: EndpointChanges) => {
      const row = statements.get.get(id);
      if (!row) return false;
      const sets: string[] = [];
      const values: Record<string, unknown> = { id };
      for (const name of ['url', 'watchlist', 'description'] as const) {
        if (changes[name] === undefined) continue;
        sets.push(`${name} = @${name}`);
        values[name] = changes[name];
      }
      if (changes.types !== undefined) {
        sets.push('types = @types');
        values.types = JSON.stringify(changes.types);
      }
      if (changes.disabled !== undefined) {
        // Enabled again: failures before count no more towards the 5 days.
        sets.push('disabled_reason = @disabled', 'failing_since = NULL');
        values.disabled = changes.disabled;
      }
      if (sets.length > 0)
        this.db.prepare(`UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE id = @id`).run(values);
      return true;
    });
  }

  async createEndpoint(endpoint: StoredEndpoint): Promise<void> {
    this.snapshot.end();
    const { disabled: _, ...row } = endpoint;
    this.statements.create.run({ ...row, types: JSON.stringify(endpoint.types) });
  }

  async getEndpoint(id: string): Promise<StoredEndpoint | undefined> {
    const row = this.statements.get.get(id);
    return row && toEndpoint(row);
  }

  async getEndpoints(ids: readonly string[]): Promise<StoredEndpoint[]> {
    return ids.flatMap((id) => {
      const row = this.statements.get.get(id);
      return row ? [toEndpoint(row)] : [];
    });
  }

  async listEndpoints(keyId?: string): Promise<StoredEndpoint[]> {
    const rows = keyId === undefined ? this.statements.all.all() : this.statements.byKey.all(keyId);
    return rows.map(toEndpoint);
  }

  async updateEndpoint(id: string, changes: EndpointChanges): Promise<boolean> {
    this.snapshot.end();
    return this.updateOnce(id, changes);
  }

  async deleteEndpoint(id: string): Promise<boolean> {
    this.snapshot.end();
    return this.db.transaction(() => {
      this.statements.removeDeliveries.run(id);
      return this.statements.remove.run(id).changes > 0;
    })();
  }

  async rotateEndpointSecret(id: string, secret: string, previousExpiresAt: Date): Promise<boolean> {
    this.snapshot.end();
    return this.statements.rotate.run({ id, secret, expires: previousExpiresAt.toISOString() }).changes > 0;
  }

  async dispatchCursor(): Promise<number> {
    return this.statements.cursor.get()!;
  }

  async enqueueDeliveries(from: number, to: number, deliveries: NewDelivery[]): Promise<boolean> {
    this.snapshot.end();
    return this.enqueueOnce(from, to, deliveries, new Date().toISOString());
  }

  async addDelivery(delivery: NewDelivery, now: Date, leaseUntil?: Date): Promise<ClaimedDelivery> {
    this.snapshot.end();
    const lease = leaseUntil?.toISOString() ?? null;
    const { seq } = this.statements.insert.get({ ...delivery, now: now.toISOString(), lease })!;
    return { id: deliveryId(seq), ...delivery, attempts: 0 };
  }

  async claimDeliveries(now: Date, leaseUntil: Date, limit: number, perEndpoint: number, claimer?: string) {
    this.snapshot.end();
    const lease = leaseUntil.toISOString();
    const rows = this.claimOnce(now.toISOString(), lease, limit, perEndpoint, claimer ?? null);
    return rows.sort((a, b) => a.seq - b.seq).map(toClaimed);
  }

  async releaseDeliveries(ids: readonly string[], claimer: string): Promise<void> {
    if (ids.length === 0) return;
    this.snapshot.end();
    this.statements.release.run({ seqs: JSON.stringify(ids.map(deliverySeq)), claimer });
  }

  async recordAttempts(records: readonly AttemptRecord[]): Promise<void> {
    if (records.length === 0) return;
    this.snapshot.end();
    this.recordOnce(records);
  }

  async listDeliveries(endpointId: string, filter: DeliveryFilter): Promise<Delivery[]> {
    const after = filter.after === undefined ? 0 : (deliverySeq(filter.after) ?? 0);
    const rows = this.statements.deliveries.all({
      endpoint: endpointId,
      after,
      status: filter.status ?? null,
      limit: filter.limit,
    });
    return rows.map(toDelivery);
  }

  async retryDelivery(endpointId: string, id: string, now: Date): Promise<boolean> {
    const seq = deliverySeq(id);
    if (seq === undefined) return false;
    this.snapshot.end();
    return this.statements.retry.run({ seq, endpoint: endpointId, now: now.toISOString() }).changes > 0;
  }

  async deliveryBacklog(): Promise<{ pending: number; oldest: string | null }> {
    return this.statements.backlog.get()!;
  }
}
