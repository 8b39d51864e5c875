// When a failed delivery is tried again, and what an attempt's answer does to its delivery and endpoint.
import type { AttemptOutcome, EndpointHealth } from '../store/webhooks.js';

/** An endpoint with nothing delivered for this long is disabled. */
export const FAILING_FOR_MS = 5 * 24 * 3600 * 1000;

/** What an attempt got: an HTTP status, or none (timeout, refused connection, refused address). */
export interface Answer {
  status_code: number | null;
}

/**
 * The delivery's outcome and the endpoint's health after an attempt. `attempts` counts those before this
 * one; `failingSince` is when the endpoint's failures began (null: it was succeeding).
 */
export function judgeAttempt(
  answer: Answer,
  attempts: number,
  schedule: readonly number[],
  now: Date,
  failingSince: string | null,
): { outcome: AttemptOutcome; health: EndpointHealth } {
  const status = answer.status_code;
  if (status !== null && status >= 200 && status < 300) {
    return { outcome: { status: 'delivered' }, health: 'succeeded' };
  }
  if (status === 410) return { outcome: { status: 'failed' }, health: 'gone' };
  const since = failingSince === null ? now.getTime() : Date.parse(failingSince);
  const health: EndpointHealth = now.getTime() - since >= FAILING_FOR_MS ? 'failing' : 'failed';
  const wait = schedule[attempts];
  if (wait === undefined) return { outcome: { status: 'failed' }, health };
  return { outcome: { status: 'pending', next_attempt_at: new Date(now.getTime() + wait * 1000) }, health };
}
