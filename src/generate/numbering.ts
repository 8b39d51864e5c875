// Record numbers: a data set numbers its records from a start — by default its seed's block — and every
// identifier minted from a number is unique to it, so sets of different seeds can be imported side by side.

/** Ids are `f` or `fp` + 12 digits: 10^12 record numbers per entity. */
export const ID_SPACE = 1_000_000_000_000;

/** A seed's block of record numbers, and the most companies, or people, one data set may hold. */
export const ID_BLOCK = 100_000_000;

/** Blocks in the id space: seeds that differ modulo this number their records in disjoint blocks. */
export const ID_BLOCKS = ID_SPACE / ID_BLOCK;

/**
 * The first record number of a seed's block: (seed mod 10,000) × 10^8.
 * @example blockStart(7) // 700_000_000
 */
export function blockStart(seed: number): number {
  return (((seed % ID_BLOCKS) + ID_BLOCKS) % ID_BLOCKS) * ID_BLOCK;
}

/** Where a data set's records are numbered from: `idStart` when given, else the seed's block. */
export function firstNumber(seed: number, idStart: number | undefined): number {
  return idStart ?? blockStart(seed);
}
