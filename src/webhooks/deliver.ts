// One attempt at one claimed delivery: signed, posted, judged, and recorded (at once, or by the dispatcher
// with others in one transaction).
import type {
  AttemptRecord,
  ClaimedDelivery,
  DeliveryAttempt,
  StoredEndpoint,
  WebhookStore,
} from '../store/webhooks.js';
import type { Poster } from './post.js';
import { judgeAttempt } from './schedule.js';
import { signedHeaders, signingSecrets } from './sign.js';

/** What delivering needs: where outcomes are kept, how to post, and the retry schedule in seconds. */
export interface Delivering {
  store: WebhookStore;
  poster: Poster;
  schedule: readonly number[];
  /** Told of each attempt's outcome once it is recorded: delivered, retrying, failed (metrics). */
  onOutcome?: (outcome: 'delivered' | 'retrying' | 'failed') => void;
}

/** Attempts `delivery` to `endpoint` once and judges the answer; nothing is recorded. */
export async function tryDelivery(
  delivering: Pick<Delivering, 'poster' | 'schedule'>,
  endpoint: StoredEndpoint,
  delivery: ClaimedDelivery,
): Promise<AttemptRecord> {
  const now = new Date();
  const timestamp = Math.floor(now.getTime() / 1000);
  const secrets = signingSecrets(endpoint, now);
  const headers = signedHeaders(secrets, delivery.event_id, timestamp, delivery.body);
  const attempt = await delivering.poster.post(endpoint.url, headers, delivery.body);
  const judged = judgeAttempt(
    attempt,
    delivery.attempts,
    delivering.schedule,
    new Date(),
    endpoint.failing_since,
  );
  return { delivery, attempt, ...judged };
}

/** Records attempts in one transaction, then tells of their outcomes. */
export async function recordAttempts(
  delivering: Delivering,
  records: readonly AttemptRecord[],
): Promise<void> {
  await delivering.store.recordAttempts(records);
  for (const { outcome } of records) {
    delivering.onOutcome?.(outcome.status === 'pending' ? 'retrying' : outcome.status);
  }
}

/** Attempts `delivery` to `endpoint` once and records the attempt; the attempt is returned. */
export async function attemptDelivery(
  delivering: Delivering,
  endpoint: StoredEndpoint,
  delivery: ClaimedDelivery,
): Promise<DeliveryAttempt> {
  const record = await tryDelivery(delivering, endpoint, delivery);
  await recordAttempts(delivering, [record]);
  return record.attempt;
}
