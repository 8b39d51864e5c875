// A key's quota counted in this server alone while Redis is unreachable: its share of what was left, and
// what it counted, to be added to Redis's count when Redis answers again.
import { localQuotaShare } from '../lease.js';
import { type QuotaGrant, type QuotaTicket, quotaExceeded } from '../quota.js';

/** What one server counted of a key's quota during an outage. */
export interface QuotaOutage {
  readonly period: string;
  /** Units this server held in Redis when the outage began, or failed to give back since: counted there already. */
  held: number;
  /** Lookups this server may reserve meanwhile: its share of what was left (the units it held among them). */
  readonly allowance: number;
  /** Lookups reserved and not given back. */
  counted: number;
  /** Lookups that matched: what Redis's count lacks (less `held`) once it answers again. */
  matched: number;
  /** Once added to Redis's count: a lookup that matches after that is added on its own. */
  reconciled: boolean;
}

/** The outage of a key of which `used` lookups of `quota` were counted, with `held` units held here. */
export function startOutage(period: string, quota: number, used: number, held: number, servers: number) {
  const outage: QuotaOutage = {
    period,
    held,
    allowance: localQuotaShare(quota - used, servers),
    counted: 0,
    matched: 0,
    reconciled: false,
  };
  return outage;
}

/** What a lookup that matched after the outage was reconciled must add to Redis's count. */
export type LateMatch = (units: number) => void;

/** A reservation of one lookup against the outage's allowance, or the 402 once it is used up. */
export function outageTicket(outage: QuotaOutage, quota: number, late: LateMatch): QuotaTicket {
  if (outage.counted >= outage.allowance) throw quotaExceeded(quota, outage.period);
  outage.counted++;
  const remaining = outage.allowance - outage.counted;
  let settled = false;
  return {
    settle: (matched) => {
      if (!settled) {
        settled = true;
        settleOutage(outage, 1, matched ? 1 : 0, late);
      }
      return matched ? remaining : remaining + 1;
    },
  };
}

/** A bulk's reservation against the outage's allowance: as many items as it has left. */
export function outageGrant(outage: QuotaOutage, items: number, late: LateMatch): QuotaGrant {
  const granted = Math.max(0, Math.min(items, outage.allowance - outage.counted));
  outage.counted += granted;
  const remaining = outage.allowance - outage.counted;
  let settled = false;
  return {
    granted,
    settle: (matched) => {
      const counted = Math.min(matched, granted);
      if (!settled) {
        settled = true;
        settleOutage(outage, granted, counted, late);
      }
      return remaining + granted - counted;
    },
  };
}

function settleOutage(outage: QuotaOutage, reserved: number, matched: number, late: LateMatch): void {
  outage.counted -= reserved - matched;
  if (outage.reconciled) {
    if (matched > 0) late(matched);
  } else outage.matched += matched;
}
