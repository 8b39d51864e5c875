// Leases of a shared bucket or quota: how much a server holds at once, when it asks for more, and its share
// while the shared store is unreachable. Pure, so that the arithmetic is tested with a fake clock.

/** How long leased tokens or quota units may be spent before they go back to the shared store, ms. */
export const LEASE_MS = 1_000;

/**
 * Servers together hold at most this fraction of a key's rate: tokens held and unspent at the start of a
 * window are the only admissions a window can see beyond the shared bucket's own (rate × seconds + one
 * second's burst), so over 10 s the excess is at most 1/4 ÷ 10 = 2.5 %, half of the 5 % allowed.
 */
const HELD_FRACTION = 4;

/**
 * The most tokens of a key one server holds at once. 0 for a key too slow to share (under 4 per second per
 * server): its requests ask Redis each time, exact as the bucket itself.
 * @example leaseCap(50, 3) // 4
 */
export function leaseCap(rate: number, servers: number): number {
  return Math.floor(rate / (HELD_FRACTION * Math.max(1, servers)));
}

/**
 * The most quota units of a key one server holds at once: a quarter of what is left, split between servers,
 * so that near the end of a quota the leases shrink to one unit each; at most `largest`.
 */
export function quotaLeaseCap(left: number, servers: number, largest = 1_000): number {
  return Math.min(largest, Math.floor(Math.max(0, left) / (HELD_FRACTION * Math.max(1, servers))));
}

/**
 * The size of the next lease: it doubles (from 1) while a key asks again within a lease's life, up to the
 * cap; a key seen once holds nothing.
 */
export function grownLease(size: number, cap: number, sinceLastMs: number): number {
  if (sinceLastMs >= LEASE_MS) return Math.min(size, cap);
  return Math.min(cap, Math.max(1, size * 2));
}

/** The size after a lease expired with tokens unspent: halved, down to holding nothing. */
export const shrunkLease = (size: number): number => Math.floor(size / 2);

/** Whether the next lease is fetched now: the one held is down to half its size (its low-water mark). */
export const belowLowWater = (held: number, size: number): boolean => size >= 1 && held <= size / 2;

/** How many to ask for: one for each request waiting, and the lease to hold. */
export const leaseWanted = (waiting: number, size: number, cap: number): number =>
  waiting + Math.min(size, cap);

/** A server's share of a rate while the servers cannot share a bucket: the rate split between them. */
export const localShare = (rate: number, servers: number): number => rate / Math.max(1, servers);

/** A server's share of what is left of a quota while it cannot be counted in one place. */
export const localQuotaShare = (left: number, servers: number): number =>
  Math.floor(Math.max(0, left) / Math.max(1, servers));

/**
 * The shared bucket as this server sees it: what Redis last reported, refilled since, plus the tokens held
 * here; never more than a second's worth.
 */
export function seenTokens(reported: number, reportedMs: number, nowMs: number, rate: number, held: number) {
  const refilled = Math.min(rate, reported + (Math.max(0, nowMs - reportedMs) / 1000) * rate);
  return Math.min(rate, refilled + held);
}

/**
 * Until when the shared bucket holds fewer than `tokens` whole tokens (1, or a busy key's lease), after
 * Redis reported `reported` at `reportedMs`: requests until then are refused without asking. Waiting for a
 * lease's worth loses nothing (the tokens stay in the bucket) and spares a round trip per refusal.
 */
export const dryUntil = (reported: number, reportedMs: number, rate: number, tokens = 1): number =>
  reportedMs + Math.max(0, Math.ceil(((Math.max(1, tokens) - reported) / rate) * 1000));

/**
 * The most requests `servers` leasing servers admit over `seconds`: the bucket's own bound (rate × seconds
 * and one second's burst) and the leases held at the window's start.
 */
export const admittedBound = (rate: number, seconds: number, servers: number): number =>
  rate * seconds + rate + servers * leaseCap(rate, servers);
