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

/** The `q` quantile (0 < q ≤ 1) of some values by nearest rank (NaN when there are none). */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/** The 99th percentile of some values by nearest rank (NaN when there are none). */
export const p99 = (values: number[]): number => quantile(values, 0.99);
