// Checks the counts and seed a caller asks for, before anything is generated.
import { MAX_RECORDS } from './handles.js';

function checkCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_RECORDS) {
    throw new RangeError(`${name} must be an integer from 0 to ${MAX_RECORDS}, got ${value}`);
  }
}

/** Throws a RangeError naming the first option that is out of range. */
export function checkOptions(opts: { companies: number; people?: number; seed: number }): void {
  checkCount('companies', opts.companies);
  if (opts.people !== undefined) checkCount('people', opts.people);
  if (!Number.isSafeInteger(opts.seed)) throw new RangeError(`seed must be a safe integer, got ${opts.seed}`);
  if ((opts.people ?? 0) > 0 && opts.companies < 1) throw new RangeError('people need at least one company');
}
