import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  admittedBound,
  belowLowWater,
  dryUntil,
  grownLease,
  LEASE_MS,
  leaseCap,
  leaseWanted,
  localQuotaShare,
  localShare,
  quotaLeaseCap,
  seenTokens,
  shrunkLease,
} from '../../src/limits/lease.js';

const rates = fc.integer({ min: 1, max: 100_000 });
const servers = fc.integer({ min: 1, max: 200 });

describe('lease arithmetic', () => {
  it('lets servers together hold at most a quarter of a rate, so a 10 s window sees at most 2.5 % more', () => {
    fc.assert(
      fc.property(rates, servers, (rate, n) => {
        expect(n * leaseCap(rate, n)).toBeLessThanOrEqual(rate / 4);
        const window = rate * 10;
        expect(admittedBound(rate, 10, n) - rate - window).toBeLessThanOrEqual(window * 0.025);
      }),
    );
  });

  it('holds nothing for a key too slow to share: rate 1 to 10 over three servers is asked of Redis each time', () => {
    for (let rate = 1; rate <= 11; rate++) expect(leaseCap(rate, 3)).toBe(0);
    expect(leaseCap(12, 3)).toBe(1);
    expect(leaseCap(50, 3)).toBe(4);
  });

  it('grows a busy key lease by doubling up to the cap, and keeps it for a key asked again after a lease life', () => {
    expect(grownLease(0, 8, 10)).toBe(1);
    expect(grownLease(1, 8, 10)).toBe(2);
    expect(grownLease(4, 8, 10)).toBe(8);
    expect(grownLease(8, 8, 10)).toBe(8);
    expect(grownLease(0, 8, LEASE_MS)).toBe(0);
    expect(grownLease(8, 2, LEASE_MS)).toBe(2); // fewer servers' worth since: the cap wins
    fc.assert(
      fc.property(fc.nat(1_000), fc.nat(1_000), fc.nat(5_000), (size, cap, since) => {
        expect(grownLease(size, cap, since)).toBeLessThanOrEqual(Math.max(cap, 0));
      }),
    );
  });

  it('halves a lease that expired unspent, down to none', () => {
    expect([8, 4, 2, 1].map(shrunkLease)).toEqual([4, 2, 1, 0]);
  });

  it('fetches the next lease at half the size, never for a key that holds none', () => {
    expect(belowLowWater(2, 4)).toBe(true);
    expect(belowLowWater(3, 4)).toBe(false);
    expect(belowLowWater(0, 1)).toBe(true);
    expect(belowLowWater(0, 0)).toBe(false);
  });

  it('asks for one token for each waiting request and the lease to hold', () => {
    expect(leaseWanted(3, 4, 2)).toBe(5);
    expect(leaseWanted(1, 0, 0)).toBe(1);
  });

  it('sees the shared bucket refilled since Redis answered, with what is held, never over a second worth', () => {
    expect(seenTokens(0, 1_000, 1_500, 10, 0)).toBe(5);
    expect(seenTokens(2, 1_000, 1_000, 10, 3)).toBe(5);
    expect(seenTokens(9, 0, 60_000, 10, 3)).toBe(10);
    expect(seenTokens(-20, 0, 1_000, 10, 0)).toBe(-10); // a bulk's debt repaid at the rate
  });

  it('refuses without asking until the bucket would hold a whole token', () => {
    expect(dryUntil(0, 1_000, 10)).toBe(1_100);
    expect(dryUntil(-20, 0, 10)).toBe(2_100);
    expect(dryUntil(0, 0, 200, 16)).toBe(80); // a busy key waits for a lease's worth
    fc.assert(
      fc.property(fc.double({ min: -1e4, max: 0.999, noNaN: true }), rates, (reported, rate) => {
        const until = dryUntil(reported, 0, rate);
        expect(seenTokens(reported, 0, until, rate, 0)).toBeGreaterThanOrEqual(1 - 1e-9);
      }),
    );
  });

  it('splits a rate and what is left of a quota between the servers last counted', () => {
    expect(localShare(60, 3)).toBe(20);
    expect(localShare(60, 0)).toBe(60);
    expect(localQuotaShare(100, 3)).toBe(33);
    expect(localQuotaShare(-5, 3)).toBe(0);
    fc.assert(
      fc.property(fc.integer({ min: -10, max: 1e7 }), servers, (left, n) => {
        expect(n * localQuotaShare(left, n)).toBeLessThanOrEqual(Math.max(0, left));
        expect(n * quotaLeaseCap(left, n)).toBeLessThanOrEqual(Math.max(0, left) / 4);
      }),
    );
  });
});
