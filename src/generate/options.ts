// Checks the counts, seed and first record number a caller asks for, before anything is generated.
import { ID_BLOCK, ID_SPACE } from './numbering.js';

function checkCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > ID_BLOCK) {
    throw new RangeError(`${name} must be an integer from 0 to ${ID_BLOCK}, got ${value}`);
  }
}

/** Throws a RangeError naming the first option that is out of range. */
export function checkOptions(opts: {
  companies: number;
  people?: number;
  seed: number;
  idStart?: number;
}): void {
  checkCount('companies', opts.companies);
  if (opts.people !== undefined) checkCount('people', opts.people);
  if (!Number.isSafeInteger(opts.seed)) throw new RangeError(`seed must be a safe integer, got ${opts.seed}`);
  if ((opts.people ?? 0) > 0 && opts.companies < 1) throw new RangeError('people need at least one company');
  const { idStart } = opts;
  if (idStart === undefined) return;
  const last = ID_SPACE - Math.max(opts.companies, opts.people ?? 0);
  if (!Number.isSafeInteger(idStart) || idStart < 0 || idStart > last) {
    throw new RangeError(
      `id start must be an integer from 0 to ${last} for this many records, got ${idStart}`,
    );
  }
}
