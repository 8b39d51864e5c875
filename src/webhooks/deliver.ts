// One attempt at one claimed delivery: signed, posted, judged and recorded.
import type { ClaimedDelivery, DeliveryAttempt, StoredEndpoint, WebhookStore } from '../store/webhooks.js';
import type { Poster } from './post.js';
import { judgeAttempt } from './schedule.js';
import { signedHeaders, signingSecrets } from './sign.js';

/** What delivering needs: where outcomes are kept, how to post, and the retry schedule in seconds. */
export interface Delivering {
  store: WebhookStore;
  poster: Poster;
  schedule: readonly number[];
  /** Told of each attempt's outcome: delivered, retrying, failed (metrics). */
  onOutcome?: (outcome: 'delivered' | 'retrying' | 'failed') => void;
}

/** Attempts `delivery` to `endpoint` once and records the attempt; the attempt is returned. */
export async function attemptDelivery(
  delivering: Delivering,
  endpoint: StoredEndpoint,
  delivery: ClaimedDelivery,
): Promise<DeliveryAttempt> {
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
  await delivering.store.recordAttempt(delivery, attempt, judged.outcome, judged.health);
  const { status } = judged.outcome;
  delivering.onOutcome?.(status === 'pending' ? 'retrying' : status);
  return attempt;
}
