// The token a Prometheus scraper sends for /metrics when ENRICH_METRICS_TOKEN is set: one shared secret,
// compared in constant time, or a 401 — /metrics is open otherwise (local scraping needs no setup).
import { createHash, timingSafeEqual } from 'node:crypto';
import { ProblemError } from '../errors.js';

const CHALLENGE = { 'www-authenticate': 'Bearer realm="metrics"' };
const BEARER = /^bearer +(\S+) *$/i;

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * A check of a request's Authorization header against the metrics token: `Bearer <token>`, or a 401
 * problem saying what is wanted. The SHA-256 digests of the two are compared, so the time taken tells
 * nothing of where, or whether in length, a guess differs.
 * @example metricsTokenCheck('s3cret-metrics-token')('Bearer s3cret-metrics-token') // passes
 */
export function metricsTokenCheck(token: string): (authorization: string | undefined) => void {
  const expected = digest(token);
  return (authorization) => {
    const given = BEARER.exec(authorization ?? '')?.[1];
    const matches = timingSafeEqual(digest(given ?? ''), expected);
    if (given !== undefined && matches) return;
    throw new ProblemError(
      'unauthorized',
      given === undefined
        ? '/metrics needs the metrics token: an Authorization: Bearer <token> header.'
        : 'The metrics token is not recognised.',
      {},
      CHALLENGE,
    );
  };
}
