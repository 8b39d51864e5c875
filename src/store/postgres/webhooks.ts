// The webhooks role on PostgreSQL, on the primary: several servers share one database, so deliveries are
// claimed with FOR UPDATE SKIP LOCKED under a lease, and the dispatcher's cursor moves only from where a
// server read it (the first to move it records the deliveries; the others find it moved and read on).
import type pg from 'pg';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  type Delivery,
  type DeliveryFilter,
  type DisabledReason,
  deliveryId,
  deliverySeq,
  type EndpointChanges,
  healthChanges,
  type NewDelivery,
  type StoredEndpoint,
  type WebhookStore,
} from '../webhooks.js';
import { inTransaction, query } from './pool.js';

/** Migration: the webhooks' tables (contract §8). */
export const WEBHOOKS_MIGRATION = `
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  key_id text NOT NULL,
  url text NOT NULL,
  types jsonb NOT NULL,
  watchlist text,
  description text,
  disabled_reason text,
  secret text NOT NULL,
  previous_secret text,
  previous_expires_at timestamptz,
  after_seq bigint NOT NULL,
  failing_since timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_key ON webhook_endpoints (key_id);
CREATE TABLE webhook_deliveries (
  seq bigserial PRIMARY KEY,
  endpoint_id text NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  body text NOT NULL,
  status text NOT NULL,
  attempts jsonb NOT NULL DEFAULT '[]',
  next_attempt_at timestamptz,
  lease_until timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, seq);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (endpoint_id, lease_until)
  WHERE status = 'pending' AND lease_until IS NOT NULL;
CREATE TABLE webhook_dispatch (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  cursor bigint NOT NULL
);
INSERT INTO webhook_dispatch (cursor) VALUES (0);
`;

const iso = (value: Date | string | null): string | null =>
  value === null ? null : value instanceof Date ? value.toISOString() : new Date(value).toISOString();

interface EndpointRow extends Omit<StoredEndpoint, 'disabled' | 'after_seq'> {
  after_seq: string;
}

const toEndpoint = (row: EndpointRow): StoredEndpoint => ({
  ...row,
  disabled: row.disabled_reason !== null,
  disabled_reason: row.disabled_reason as DisabledReason | null,
  previous_expires_at: iso(row.previous_expires_at),
  after_seq: Number(row.after_seq),
  failing_since: iso(row.failing_since),
  created_at: iso(row.created_at)!,
});

interface DeliveryRow extends Omit<Delivery, 'id'> {
  seq: string;
}

const toDelivery = ({ seq, ...row }: DeliveryRow): Delivery => ({
  id: deliveryId(seq),
  ...row,
  next_attempt_at: iso(row.next_attempt_at),
  created_at: iso(row.created_at)!,
});

interface ClaimedRow extends NewDelivery {
  seq: string;
  attempts: number;
}

const toClaimed = ({ seq, ...row }: ClaimedRow): ClaimedDelivery => ({ id: deliveryId(seq), ...row });

const ENDPOINT_COLUMNS = `id, key_id, url, types, watchlist, description, disabled_reason, secret, previous_secret,
  previous_expires_at, after_seq, failing_since, created_at`;
const DELIVERY_COLUMNS =
  'seq, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at';

const INSERT = `INSERT INTO webhook_deliveries
  (endpoint_id, event_id, event_type, body, status, next_attempt_at, lease_until, created_at)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]), LATERAL
    (SELECT 'pending', $5::timestamptz, $6::timestamptz, $5::timestamptz) AS fixed
  RETURNING seq`;

/**
 * In one statement: per enabled endpoint not being claimed by another server (its row locked), its room
 * (none while another claimer holds a lease of it; else $4 less this claimer's, $5) and its oldest due
 * deliveries up to it; of those, up to $3 (every endpoint's oldest before any endpoint's second), leased.
 */
const CLAIM = `
WITH endpoints AS (
  SELECT e.id FROM webhook_endpoints e WHERE e.disabled_reason IS NULL FOR NO KEY UPDATE SKIP LOCKED
), rooms AS (
  SELECT e.id, CASE WHEN count(l.seq) FILTER (WHERE l.claimer IS DISTINCT FROM $5) > 0 THEN 0
    ELSE $4::int - count(l.seq) END AS room
  FROM endpoints e LEFT JOIN webhook_deliveries l ON l.endpoint_id = e.id AND l.status = 'pending'
    AND l.lease_until > $1
  GROUP BY e.id
), due AS (
  SELECT d.seq, row_number() OVER (PARTITION BY r.id ORDER BY d.seq) AS rank
  FROM rooms r CROSS JOIN LATERAL (
    SELECT seq FROM webhook_deliveries
    WHERE endpoint_id = r.id AND status = 'pending' AND next_attempt_at <= $1
      AND (lease_until IS NULL OR lease_until <= $1)
    ORDER BY seq LIMIT least(greatest(r.room, 0), $3) FOR UPDATE SKIP LOCKED
  ) d
), chosen AS (
  SELECT seq FROM due ORDER BY rank, seq LIMIT $3
)
UPDATE webhook_deliveries d SET lease_until = $2, claimer = $5 FROM chosen WHERE d.seq = chosen.seq
RETURNING d.seq, d.endpoint_id, d.event_id, d.event_type, d.body, jsonb_array_length(d.attempts) AS attempts`;

/**
 * In one statement (so in one transaction): attempts appended to their deliveries, each ending its lease and
 * setting its outcome; then the endpoints' health after them (see HealthChange), written where it changes.
 */
const RECORD = `
WITH recorded AS (
  UPDATE webhook_deliveries d SET attempts = d.attempts || jsonb_build_array(a.attempt::jsonb),
    status = a.status, next_attempt_at = a.next, lease_until = NULL, claimer = NULL
  FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[]) AS a(seq, attempt, status, next)
  WHERE d.seq = a.seq
)
UPDATE webhook_endpoints e SET
  failing_since = CASE WHEN h.reset THEN h.failing_from ELSE coalesce(e.failing_since, h.failing_from) END,
  disabled_reason = coalesce(e.disabled_reason, h.disable)
FROM unnest($5::text[], $6::boolean[], $7::timestamptz[], $8::text[]) AS h(id, reset, failing_from, disable)
WHERE e.id = h.id AND (e.disabled_reason IS DISTINCT FROM coalesce(e.disabled_reason, h.disable)
  OR e.failing_since IS DISTINCT FROM
    CASE WHEN h.reset THEN h.failing_from ELSE coalesce(e.failing_since, h.failing_from) END)`;

export class PostgresWebhooks implements WebhookStore {
  constructor(private readonly primary: pg.Pool) {}

  async createEndpoint(endpoint: StoredEndpoint): Promise<void> {
    const e = endpoint;
    await query(this.primary, {
      text: `INSERT INTO webhook_endpoints (${ENDPOINT_COLUMNS})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      values: [
        e.id,
        e.key_id,
        e.url,
        JSON.stringify(e.types),
        e.watchlist,
        e.description,
        e.disabled_reason,
        e.secret,
        e.previous_secret,
        e.previous_expires_at,
        e.after_seq,
        e.failing_since,
        e.created_at,
      ],
    });
  }

  async getEndpoint(id: string): Promise<StoredEndpoint | undefined> {
    const { rows } = await query<EndpointRow>(this.primary, {
      text: `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1`,
      values: [id],
    });
    return rows[0] && toEndpoint(rows[0]);
  }

  async getEndpoints(ids: readonly string[]): Promise<StoredEndpoint[]> {
    if (ids.length === 0) return [];
    const { rows } = await query<EndpointRow>(this.primary, {
      text: `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ANY($1::text[])`,
      values: [ids],
    });
    return rows.map(toEndpoint);
  }

  async listEndpoints(keyId?: string): Promise<StoredEndpoint[]> {
    const { rows } = await query<EndpointRow>(this.primary, {
      text: `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE $1::text IS NULL OR key_id = $1
             ORDER BY created_at, id`,
      values: [keyId ?? null],
    });
    return rows.map(toEndpoint);
  }

  async updateEndpoint(id: string, changes: EndpointChanges): Promise<boolean> {
    const given = (value: unknown) => value !== undefined;
    const { rowCount } = await query(this.primary, {
      text: `UPDATE webhook_endpoints SET
               url = CASE WHEN $2 THEN $3 ELSE url END,
               types = CASE WHEN $4 THEN $5::jsonb ELSE types END,
               watchlist = CASE WHEN $6 THEN $7 ELSE watchlist END,
               description = CASE WHEN $8 THEN $9 ELSE description END,
               disabled_reason = CASE WHEN $10 THEN $11 ELSE disabled_reason END,
               failing_since = CASE WHEN $10 THEN NULL ELSE failing_since END
             WHERE id = $1`,
      values: [
        id,
        given(changes.url),
        changes.url ?? null,
        given(changes.types),
        changes.types === undefined ? null : JSON.stringify(changes.types),
        given(changes.watchlist),
        changes.watchlist ?? null,
        given(changes.description),
        changes.description ?? null,
        given(changes.disabled),
        changes.disabled ?? null,
      ],
    });
    return rowCount === 1;
  }

  deleteEndpoint(id: string): Promise<boolean> {
    return inTransaction(this.primary, async (client) => {
      await client.query({ text: 'DELETE FROM webhook_deliveries WHERE endpoint_id = $1', values: [id] });
      const { rowCount } = await client.query({
        text: 'DELETE FROM webhook_endpoints WHERE id = $1',
        values: [id],
      });
      return rowCount === 1;
    });
  }

  async rotateEndpointSecret(id: string, secret: string, previousExpiresAt: Date): Promise<boolean> {
    const { rowCount } = await query(this.primary, {
      text: `UPDATE webhook_endpoints SET previous_secret = secret, secret = $2, previous_expires_at = $3
             WHERE id = $1`,
      values: [id, secret, previousExpiresAt.toISOString()],
    });
    return rowCount === 1;
  }

  async dispatchCursor(): Promise<number> {
    const { rows } = await query<{ cursor: string }>(this.primary, {
      text: 'SELECT cursor FROM webhook_dispatch',
    });
    return Number(rows[0]!.cursor);
  }

  enqueueDeliveries(from: number, to: number, deliveries: NewDelivery[]): Promise<boolean> {
    return inTransaction(this.primary, async (client) => {
      const moved = await client.query({
        text: 'UPDATE webhook_dispatch SET cursor = $1 WHERE cursor = $2',
        values: [to, from],
      });
      if (moved.rowCount !== 1) return false;
      if (deliveries.length > 0) await client.query(insertion(deliveries, new Date(), null));
      return true;
    });
  }

  async addDelivery(delivery: NewDelivery, now: Date, leaseUntil?: Date): Promise<ClaimedDelivery> {
    const { rows } = await query<{ seq: string }>(
      this.primary,
      insertion([delivery], now, leaseUntil ?? null),
    );
    return { id: deliveryId(rows[0]!.seq), ...delivery, attempts: 0 };
  }

  async claimDeliveries(now: Date, leaseUntil: Date, limit: number, perEndpoint: number, claimer?: string) {
    const { rows } = await query<ClaimedRow>(this.primary, {
      text: CLAIM,
      values: [now.toISOString(), leaseUntil.toISOString(), limit, perEndpoint, claimer ?? null],
    });
    return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map(toClaimed);
  }

  async releaseDeliveries(ids: readonly string[], claimer: string): Promise<void> {
    if (ids.length === 0) return;
    await query(this.primary, {
      text: `UPDATE webhook_deliveries SET lease_until = NULL, claimer = NULL
             WHERE seq = ANY($1::bigint[]) AND claimer = $2 AND status = 'pending'`,
      values: [ids.map(deliverySeq), claimer],
    });
  }

  async recordAttempts(records: readonly AttemptRecord[]): Promise<void> {
    if (records.length === 0) return;
    const health = healthChanges(records);
    await query(this.primary, {
      text: RECORD,
      values: [
        records.map((r) => deliverySeq(r.delivery.id)),
        records.map((r) => JSON.stringify(r.attempt)),
        records.map((r) => r.outcome.status),
        records.map((r) => (r.outcome.status === 'pending' ? r.outcome.next_attempt_at.toISOString() : null)),
        health.map((h) => h.endpoint_id),
        health.map((h) => h.reset),
        health.map((h) => h.failing_from),
        health.map((h) => h.disable),
      ],
    });
  }

  async listDeliveries(endpointId: string, filter: DeliveryFilter): Promise<Delivery[]> {
    const after = filter.after === undefined ? 0 : (deliverySeq(filter.after) ?? 0);
    const { rows } = await query<DeliveryRow>(this.primary, {
      text: `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = $1 AND seq > $2
               AND ($3::text IS NULL OR status = $3) ORDER BY seq LIMIT $4`,
      values: [endpointId, after, filter.status ?? null, filter.limit],
    });
    return rows.map(toDelivery);
  }

  async retryDelivery(endpointId: string, id: string, now: Date): Promise<boolean> {
    const seq = deliverySeq(id);
    if (seq === undefined) return false;
    const { rowCount } = await query(this.primary, {
      text: `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $3, lease_until = NULL
             WHERE seq = $1 AND endpoint_id = $2`,
      values: [seq, endpointId, now.toISOString()],
    });
    return rowCount === 1;
  }

  async deliveryBacklog(): Promise<{ pending: number; oldest: string | null }> {
    const { rows } = await query<{ pending: string; oldest: Date | null }>(this.primary, {
      text: `SELECT count(*) AS pending, min(d.created_at) AS oldest FROM webhook_deliveries d
             JOIN webhook_endpoints e ON e.id = d.endpoint_id
             WHERE d.status = 'pending' AND e.disabled_reason IS NULL`,
    });
    return { pending: Number(rows[0]!.pending), oldest: iso(rows[0]!.oldest) };
  }
}

/** The insert of deliveries, due at `now`, leased until `lease` (null: not leased). */
function insertion(deliveries: NewDelivery[], now: Date, lease: Date | null): pg.QueryConfig {
  return {
    text: INSERT,
    values: [
      deliveries.map((d) => d.endpoint_id),
      deliveries.map((d) => d.event_id),
      deliveries.map((d) => d.event_type),
      deliveries.map((d) => d.body),
      now.toISOString(),
      lease?.toISOString() ?? null,
    ],
  };
}
