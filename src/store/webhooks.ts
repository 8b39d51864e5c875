// The webhooks role of the store (contract §8): keys' endpoints, the deliveries owed to them, and the
// dispatcher's cursor into the change log, so that what is owed is derived from the log and never lost.

/** Why an endpoint stopped receiving: its owner said so, it answered 410, or 5 days without a success. */
export type DisabledReason = 'manual' | 'gone' | 'failing';

/** An endpoint as its owner sees it: never its secrets. Dates are ISO-8601 strings. */
export interface WebhookEndpoint {
  id: string;
  key_id: string;
  url: string;
  /** The event types delivered. */
  types: string[];
  /** Only the events of this watchlist's people and companies, when set. */
  watchlist: string | null;
  description: string | null;
  disabled: boolean;
  disabled_reason: DisabledReason | null;
  created_at: string;
}

/** An endpoint as stored: its secrets, and where in the log its deliveries start. */
export interface StoredEndpoint extends WebhookEndpoint {
  /** `whsec_…`: signs every delivery. */
  secret: string;
  /** The secret before the last rotation, which still signs until `previous_expires_at`. */
  previous_secret: string | null;
  previous_expires_at: string | null;
  /** Events after this sequence number are delivered (the log's last when the endpoint was made). */
  after_seq: number;
  /** The first failed attempt since the last success; null while it succeeds. */
  failing_since: string | null;
}

/** What an owner may change; `disabled` null enables the endpoint again. */
export type EndpointChanges = Partial<
  Pick<WebhookEndpoint, 'url' | 'types' | 'watchlist' | 'description'>
> & {
  disabled?: DisabledReason | null;
};

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One attempt to deliver: when, the status answered (null: no answer), how long, and what went wrong. */
export interface DeliveryAttempt {
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  /** The start of the answer's body (at most 1 KB). */
  response: string | null;
}

/** A delivery as its endpoint's owner lists it. */
export interface Delivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** When it is next attempted (pending only). */
  next_attempt_at: string | null;
  created_at: string;
}

/** A delivery to make: the event's id, type and the exact body every attempt sends. */
export interface NewDelivery {
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: string;
}

/** A delivery claimed for one attempt: nobody else attempts it until its lease ends. */
export interface ClaimedDelivery extends NewDelivery {
  id: string;
  /** Attempts made before this one. */
  attempts: number;
}

/** How an attempt ends the delivery: delivered, retried at a time, or failed for good. */
export type AttemptOutcome =
  | { status: 'delivered' }
  | { status: 'pending'; next_attempt_at: Date }
  | { status: 'failed' };

/** What an attempt tells of its endpoint: it works, it fails, or it is to be disabled for a reason. */
export type EndpointHealth = 'succeeded' | 'failed' | DisabledReason;

/** One attempt at a claimed delivery, judged: what `recordAttempts` keeps. */
export interface AttemptRecord {
  delivery: ClaimedDelivery;
  attempt: DeliveryAttempt;
  outcome: AttemptOutcome;
  health: EndpointHealth;
}

/**
 * What a run of attempts, in the order they ended, does to one endpoint: `reset` (one succeeded) makes its
 * failures start at `failingFrom` (the first failure after the last success, or none); otherwise they start
 * at the earlier of theirs and `failingFrom`. `disable`: the first reason to disable it, if any.
 */
export interface HealthChange {
  endpoint_id: string;
  reset: boolean;
  failing_from: string | null;
  disable: DisabledReason | null;
}

/** The endpoints' health after `records`, one change an endpoint: as if each attempt were recorded in turn. */
export function healthChanges(records: readonly AttemptRecord[]): HealthChange[] {
  const changes = new Map<string, HealthChange>();
  for (const { delivery, attempt, health } of records) {
    let change = changes.get(delivery.endpoint_id);
    if (!change) {
      change = { endpoint_id: delivery.endpoint_id, reset: false, failing_from: null, disable: null };
      changes.set(delivery.endpoint_id, change);
    }
    if (health === 'succeeded') {
      change.reset = true;
      change.failing_from = null;
    } else {
      change.failing_from ??= attempt.at;
      if (health !== 'failed') change.disable ??= health;
    }
  }
  return [...changes.values()];
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  /** Deliveries made after this one (its id), oldest first. */
  after?: string;
  limit: number;
}

export interface WebhookStore {
  createEndpoint(endpoint: StoredEndpoint): Promise<void>;
  getEndpoint(id: string): Promise<StoredEndpoint | undefined>;
  /** Every endpoint, or one key's, oldest first. */
  listEndpoints(keyId?: string): Promise<StoredEndpoint[]>;
  /** Changes what is given; false when there is no such endpoint. */
  updateEndpoint(id: string, changes: EndpointChanges): Promise<boolean>;
  /** Removes an endpoint and its deliveries; false when there is no such endpoint. */
  deleteEndpoint(id: string): Promise<boolean>;
  /** A new secret; the current one signs too until `previousExpiresAt`. False when no such endpoint. */
  rotateEndpointSecret(id: string, secret: string, previousExpiresAt: Date): Promise<boolean>;

  /** The sequence number of the last change-log event the dispatcher has turned into deliveries. */
  dispatchCursor(): Promise<number>;
  /**
   * Records `deliveries` and moves the cursor from `from` to `to`, in one transaction; false (and nothing
   * recorded) when the cursor is no longer at `from` (another dispatcher got there first).
   */
  enqueueDeliveries(from: number, to: number, deliveries: NewDelivery[]): Promise<boolean>;
  /** Records one delivery, due now; leased until `leaseUntil` when given (its maker attempts it). */
  addDelivery(delivery: NewDelivery, now: Date, leaseUntil?: Date): Promise<ClaimedDelivery>;
  /**
   * Leases up to `limit` due, unleased, pending deliveries of enabled endpoints to `claimer` until
   * `leaseUntil`, oldest first; two processes never lease the same one. An endpoint of which another claimer
   * holds a lease gets none; otherwise up to `perEndpoint` leased to this claimer at once (those it holds
   * counted). So one claimer at a time attempts an endpoint's deliveries, in order. When `limit` binds, every
   * endpoint gets its oldest before any gets its second (no endpoint crowds out another). Listed oldest first.
   * Without a claimer, the claims made without one are one claimer's.
   */
  claimDeliveries(
    now: Date,
    leaseUntil: Date,
    limit: number,
    perEndpoint: number,
    claimer?: string,
  ): Promise<ClaimedDelivery[]>;
  /**
   * Ends `claimer`'s leases of these deliveries, not attempted: due to any claimer again at once (a
   * dispatcher stopping, or one that will not start them within their lease).
   */
  releaseDeliveries(ids: readonly string[], claimer: string): Promise<void>;
  /** Endpoints by id, those that exist: what the deliveries just claimed go to, as they are now. */
  getEndpoints(ids: readonly string[]): Promise<StoredEndpoint[]>;
  /**
   * In one transaction, per record: appends the attempt to its delivery, ends its lease and sets its outcome;
   * then each endpoint's health as if the records were kept one by one, in the order given.
   */
  recordAttempts(records: readonly AttemptRecord[]): Promise<void>;
  listDeliveries(endpointId: string, filter: DeliveryFilter): Promise<Delivery[]>;
  /** Makes a delivery pending and due at `now` again; false when the endpoint has no such delivery. */
  retryDelivery(endpointId: string, deliveryId: string, now: Date): Promise<boolean>;
  /** Pending deliveries of enabled endpoints, and when the oldest of them was made. */
  deliveryBacklog(): Promise<{ pending: number; oldest: string | null }>;
}

/**
 * Of each endpoint's due deliveries (numbers, oldest first), up to `limit` in all: every endpoint's oldest
 * before any endpoint's second, and so on. Oldest first.
 */
export function oldestOfEachFirst(due: readonly (readonly number[])[], limit: number): number[] {
  const chosen: number[] = [];
  for (let rank = 0; chosen.length < limit; rank++) {
    const these = due.filter((seqs) => rank < seqs.length).map((seqs) => seqs[rank]!);
    if (these.length === 0) break;
    chosen.push(...these.sort((a, b) => a - b).slice(0, limit - chosen.length));
  }
  return chosen.sort((a, b) => a - b);
}

/** The public id of the delivery numbered `seq`. */
export const deliveryId = (seq: number | string): string => `whd_${seq}`;

/** The number of a delivery id, or undefined when it is not one. */
export function deliverySeq(id: string): number | undefined {
  const match = /^whd_([1-9]\d{0,15})$/.exec(id);
  return match ? Number(match[1]) : undefined;
}
