// The result of a normalisation: a value or a reason, so bulk import can skip bad values without exceptions.
import { ProblemError } from '../errors.js';

export type Outcome = { ok: true; value: string } | { ok: false; reason: string };

export const accept = (value: string): Outcome => ({ ok: true, value });
export const reject = (reason: string): Outcome => ({ ok: false, reason });

/**
 * The value of an outcome, or a 400 `invalid_parameter` carrying its reason.
 * @example valueOrThrow(accept('acme.com.au')) // 'acme.com.au'
 */
export function valueOrThrow(outcome: Outcome): string {
  if (!outcome.ok) throw new ProblemError('invalid_parameter', outcome.reason);
  return outcome.value;
}
