// The evolve's random streams: one per record and purpose, so any record's fate is the same whatever else is in the set.
import { type Rng, recordRng, streamSeed } from '../random.js';
import { type Month, monthIndex } from './calendar.js';

export const KIND = {
  companyMonths: 0x65760001,
  companyEdits: 0x65760002,
  personMonths: 0x65760003,
  personEdits: 0x65760004,
  employers: 0x65760005,
  newcomers: 0x65760006,
  founded: 0x65760007,
  run: 0x65760008,
  newcomerCount: 0x65760009,
} as const;

/**
 * The seed of one evolve: the user's seed and the month the set stands at, so evolving an evolved set
 * with the same seed draws new fates rather than repeating the last ones.
 */
export const runSeed = (seed: number, asOf: Month) => streamSeed(seed, KIND.run, monthIndex(asOf));

/** FNV-1a of a record id: records are keyed by id, which any set has, not by their place in a file. */
export function keyOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

export const recordStream = (seed: number, kind: number, id: string): Rng => recordRng(seed, kind, keyOf(id));
