// Summaries over repeated runs: every figure the benchmark quotes is the median of its runs.

/** The median of the finite values (NaN when there are none); the mean of the middle two for an even count. */
export function median(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The median of one field over runs. */
export const medianOf = <T>(runs: T[], field: (run: T) => number): number => median(runs.map(field));

/** The 99th percentile of some values by nearest rank (NaN when there are none). */
export function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)] ?? Number.NaN;
}
