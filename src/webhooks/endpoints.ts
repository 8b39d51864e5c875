// A key's webhook endpoints: made, shown, changed, rotated, tested. No HTTP here; the routes call these.
import { randomBytes } from 'node:crypto';
import { ProblemError } from '../errors.js';
import type { EndpointChanges, StoredEndpoint, WebhookStore } from '../store/webhooks.js';
import { isForbiddenAddress, literalAddress } from './addresses.js';
import { attemptDelivery, type Delivering } from './deliver.js';
import { newSecret } from './sign.js';

/** How long a rotated-out secret still signs. */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;

/** Tells whether a key has a watchlist of this id (the watchlists' store, once it is there). */
export type WatchlistOwned = (keyId: string, watchlistId: string) => Promise<boolean>;

export interface EndpointRules {
  allowPrivate: boolean;
  watchlistOwned?: WatchlistOwned | undefined;
}

/** An endpoint as its owner sees it: never a secret, nor where in the log it starts. */
export function endpointView(endpoint: StoredEndpoint) {
  const { id, url, types, watchlist, description, disabled, disabled_reason, created_at } = endpoint;
  return { id, url, types, watchlist, description, disabled, disabled_reason, created_at };
}

/**
 * Refuses a URL a webhook may not have: not http(s), credentials in it, or an address literal that is
 * loopback, private, link-local, multicast or unspecified (a name is checked each time it is connected to).
 */
export function checkUrl(url: string, allowPrivate: boolean): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProblemError('invalid_parameter', 'url must be an absolute http or https URL.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ProblemError('invalid_parameter', 'url must be an http or https URL.');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ProblemError('invalid_parameter', 'url must not carry a user name or password.');
  }
  const literal = literalAddress(parsed.hostname);
  if (!allowPrivate && literal !== undefined && isForbiddenAddress(literal)) {
    throw new ProblemError(
      'invalid_parameter',
      'url must not name a loopback, private, link-local, multicast or unspecified address.',
    );
  }
}

/** The key's endpoint of this id; another key's, or none, is a 404 alike. */
export async function ownEndpoint(store: WebhookStore, keyId: string, id: string): Promise<StoredEndpoint> {
  const endpoint = await store.getEndpoint(id);
  if (!endpoint || endpoint.key_id !== keyId) {
    throw new ProblemError('not_found', `There is no webhook endpoint ${id}.`);
  }
  return endpoint;
}

async function checkWatchlist(rules: EndpointRules, keyId: string, watchlist: string | null | undefined) {
  if (watchlist === undefined || watchlist === null) return;
  if (!(await rules.watchlistOwned?.(keyId, watchlist))) {
    throw new ProblemError('not_found', `There is no watchlist ${watchlist}.`);
  }
}

export interface NewEndpoint {
  url: string;
  types: string[];
  watchlist?: string | undefined;
  description?: string | undefined;
}

/**
 * Makes an endpoint owed the events after `afterSeq` (the log's last when it is made); its secret is in
 * the answer only.
 */
export async function createEndpoint(
  store: WebhookStore,
  rules: EndpointRules,
  keyId: string,
  given: NewEndpoint,
  afterSeq: number,
): Promise<{ endpoint: StoredEndpoint; secret: string }> {
  checkUrl(given.url, rules.allowPrivate);
  await checkWatchlist(rules, keyId, given.watchlist);
  const endpoint: StoredEndpoint = {
    id: `wh_${randomBytes(10).toString('hex')}`,
    key_id: keyId,
    url: given.url,
    types: given.types,
    watchlist: given.watchlist ?? null,
    description: given.description ?? null,
    disabled: false,
    disabled_reason: null,
    created_at: new Date().toISOString(),
    secret: newSecret(),
    previous_secret: null,
    previous_expires_at: null,
    after_seq: afterSeq,
    failing_since: null,
  };
  await store.createEndpoint(endpoint);
  return { endpoint, secret: endpoint.secret };
}

export interface EndpointChange {
  url?: string;
  types?: string[];
  watchlist?: string | null;
  description?: string | null;
  disabled?: boolean;
}

/** Changes what is given of a key's endpoint; enabling one again forgets its failures. */
export async function changeEndpoint(
  store: WebhookStore,
  rules: EndpointRules,
  keyId: string,
  id: string,
  change: EndpointChange,
): Promise<StoredEndpoint> {
  const endpoint = await ownEndpoint(store, keyId, id);
  if (change.url !== undefined) checkUrl(change.url, rules.allowPrivate);
  await checkWatchlist(rules, keyId, change.watchlist);
  const { disabled, ...rest } = change;
  const changes: EndpointChanges = { ...rest };
  if (disabled !== undefined && disabled !== endpoint.disabled) changes.disabled = disabled ? 'manual' : null;
  await store.updateEndpoint(id, changes);
  return (await store.getEndpoint(id)) ?? endpoint;
}

/** A new secret for a key's endpoint; the old one signs too for 24 hours. */
export async function rotateSecret(store: WebhookStore, keyId: string, id: string) {
  await ownEndpoint(store, keyId, id);
  const secret = newSecret();
  await store.rotateEndpointSecret(id, secret, new Date(Date.now() + SECRET_OVERLAP_MS));
  return { endpoint: (await store.getEndpoint(id))!, secret };
}

/** Delivers a `webhook.test` event to a key's endpoint now, as any event is; the delivery is recorded. */
export async function sendTestEvent(delivering: Delivering, keyId: string, id: string) {
  const endpoint = await ownEndpoint(delivering.store, keyId, id);
  const now = new Date();
  const event = {
    id: `evt_test_${randomBytes(8).toString('hex')}`,
    type: 'webhook.test',
    timestamp: now.toISOString(),
    data: { endpoint_id: id },
  };
  const delivery = await delivering.store.addDelivery(
    { endpoint_id: id, event_id: event.id, event_type: event.type, body: JSON.stringify(event) },
    now,
    new Date(now.getTime() + 60_000),
  );
  const attempt = await attemptDelivery(delivering, endpoint, delivery);
  return { delivery_id: delivery.id, event_id: event.id, attempt };
}
