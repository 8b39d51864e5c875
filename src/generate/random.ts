// A small, fast, seedable PRNG: one independent stream per (seed, kind, index), so any record is random-access.

/** Murmur3's 32-bit finaliser: a bijection on 32-bit integers that mixes every bit. */
export function mix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Folds an integer of up to 53 bits into a 32-bit hash. */
function fold(n: number, salt: number): number {
  const lo = n >>> 0;
  const hi = Math.floor(n / 0x1_0000_0000) >>> 0;
  return mix32(mix32(lo ^ salt) ^ Math.imul(hi, 0x9e3779b1));
}

/** Random-stream kinds, one per independent part of the data set. */
export const STREAM = { companyFacts: 1, companyDetails: 2, personName: 3, person: 4 } as const;

/** The 32-bit seed of the random stream for record `index` of `kind` under a data set `seed`. */
export function streamSeed(seed: number, kind: number, index: number): number {
  return mix32(fold(seed, 0x5bd1e995) ^ fold(index, Math.imul(kind + 1, 0x27d4eb2d)));
}

/** mulberry32: tiny state, full 2^32 period, good enough for synthetic data. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed | 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi], both inclusive. */
  between(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** `k` distinct items (fewer if the list is shorter), in list order of drawing. */
  sample<T>(items: readonly T[], k: number): T[] {
    const out: T[] = [];
    const taken = new Set<number>();
    const want = Math.min(k, items.length);
    while (out.length < want) {
      const at = this.int(items.length);
      if (taken.has(at)) continue;
      taken.add(at);
      out.push(items[at]!);
    }
    return out;
  }

  /** A string of `n` random decimal digits. */
  digits(n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += Math.floor(this.next() * 10);
    return out;
  }

  /** A value drawn in proportion to its weight. */
  weighted<T>(table: Weights<T>): T {
    const r = this.next() * table.total;
    const { bounds, values } = table;
    for (let i = 0; i < bounds.length; i++) if (r < bounds[i]!) return values[i]!;
    return values[values.length - 1]!;
  }
}

/** Values with cumulative weights, built once so a draw is one scan. */
export interface Weights<T> {
  values: readonly T[];
  bounds: readonly number[];
  total: number;
}

/** A weight table from [value, weight] pairs. */
export function weights<T>(pairs: readonly (readonly [T, number])[]): Weights<T> {
  let total = 0;
  const bounds = pairs.map(([, weight]) => (total += weight));
  return { values: pairs.map(([value]) => value), bounds, total };
}

/** A stream for record `index` of `kind` under `seed`. */
export function recordRng(seed: number, kind: number, index: number): Rng {
  return new Rng(streamSeed(seed, kind, index));
}
