// A normalised identifier: its value, or the reason it was refused, so that bulk import can skip bad values
// without exceptions.
import { ProblemError } from '../errors.js';

export type Normalised = { ok: true; value: string } | { ok: false; reason: string };

export const accept = (value: string): Normalised => ({ ok: true, value });
export const reject = (reason: string): Normalised => ({ ok: false, reason });

/**
 * The value, or a 400 `invalid_parameter` carrying its reason.
 * @example valueOrThrow(accept('acme.com.au')) // 'acme.com.au'
 */
export function valueOrThrow(normalised: Normalised): string {
  if (!normalised.ok) throw new ProblemError('invalid_parameter', normalised.reason);
  return normalised.value;
}
