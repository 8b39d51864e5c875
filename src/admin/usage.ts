// Usage series for the admin API: per key and operation, requests and outcomes by day (the usage the journal
// folds), or by hour or minute (the per-minute counts, with latency percentiles).
import { latencyPercentile } from '../accounting/minute-counts.js';
import { COUNTERS } from '../accounting/usage-report.js';
import { ProblemError } from '../errors.js';
import type { AccountingStore, UsageCounts } from '../store/accounting.js';
import type { Operation } from '../vocabulary/operations.js';

export const GRANULARITIES = ['minute', 'hour', 'day'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** How far back a series reaches when `from` is not given, and the longest range of each granularity. */
const SPAN_MS: Record<Granularity, { default: number; most: number }> = {
  minute: { default: 3_600_000, most: 7 * 86_400_000 },
  hour: { default: 86_400_000, most: 31 * 86_400_000 },
  day: { default: 30 * 86_400_000, most: 3660 * 86_400_000 },
};

export interface UsagePoint extends UsageCounts {
  /** The start of the minute, hour or UTC day, ISO-8601. */
  at: string;
  /** Latency under which half (99%) of the timed requests were answered, ms (a bucket's bound); per minute
   * and hour only, null when none was timed or beyond 10 s. */
  p50_ms?: number | null;
  p99_ms?: number | null;
}

export interface UsageSeries {
  key_id: string;
  operation: Operation;
  points: UsagePoint[];
}

export interface UsageQuery {
  key?: string;
  from?: string;
  to?: string;
  granularity?: string;
}

function moment(param: string, value: string): Date {
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw new ProblemError('invalid_parameter', `${param}: expected an ISO date or time such as 2026-11-01`, {
      parameter: param,
    });
  }
  return date;
}

/** The start of the bucket holding a time, ISO-8601 with seconds: '2026-11-25T22:00:00Z' for an hour. */
const bucketOf: Record<Granularity, (iso: string) => string> = {
  minute: (iso) => `${iso.slice(0, 16)}:00Z`,
  hour: (iso) => `${iso.slice(0, 13)}:00:00Z`,
  day: (iso) => `${iso.slice(0, 10)}T00:00:00Z`,
};

/** A series' points by bucket, in time order; latency buckets summed alongside. */
class SeriesBuilder {
  private readonly series = new Map<
    string,
    { key_id: string; operation: Operation; points: Map<string, UsagePoint & { latency?: number[] }> }
  >();

  add(keyId: string, operation: Operation, at: string, counts: UsageCounts, latency?: readonly number[]) {
    const id = `${keyId}|${operation}`;
    let one = this.series.get(id);
    if (!one) {
      one = { key_id: keyId, operation, points: new Map() };
      this.series.set(id, one);
    }
    let point = one.points.get(at);
    if (!point) {
      point = { at, requests: 0, matched: 0, not_found: 0, ambiguous: 0, rejected: 0 };
      if (latency) point.latency = new Array<number>(latency.length).fill(0);
      one.points.set(at, point);
    }
    for (const c of COUNTERS) point[c] += counts[c];
    if (latency && point.latency) for (let i = 0; i < latency.length; i++) point.latency[i]! += latency[i]!;
  }

  build(): UsageSeries[] {
    return [...this.series.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, { key_id, operation, points }]) => ({
        key_id,
        operation,
        points: [...points.values()]
          .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
          .map(({ latency, ...point }) =>
            latency
              ? {
                  ...point,
                  p50_ms: latencyPercentile(latency, 0.5),
                  p99_ms: latencyPercentile(latency, 0.99),
                }
              : point,
          ),
      }));
  }
}

/** The query's range and granularity, checked: `from` inclusive, `to` exclusive (default now). */
export function usageRange(query: UsageQuery, now = new Date()) {
  const granularity = (query.granularity ?? 'day') as Granularity;
  if (!GRANULARITIES.includes(granularity)) {
    throw new ProblemError('invalid_parameter', `granularity: expected one of ${GRANULARITIES.join(', ')}`, {
      parameter: 'granularity',
      accepted: GRANULARITIES,
    });
  }
  const span = SPAN_MS[granularity];
  const to = query.to === undefined ? now : moment('to', query.to);
  const from = query.from === undefined ? new Date(to.getTime() - span.default) : moment('from', query.from);
  if (from.getTime() >= to.getTime()) {
    throw new ProblemError('invalid_parameter', 'from: must be before to', { parameter: 'from' });
  }
  if (to.getTime() - from.getTime() > span.most) {
    throw new ProblemError(
      'invalid_parameter',
      `from: a ${granularity} series covers at most ${span.most / 86_400_000} days`,
      { parameter: 'from' },
    );
  }
  return { granularity, from: from.toISOString(), to: to.toISOString() };
}

/** Usage series over a range: by day from the folded usage, by hour or minute from the per-minute counts. */
export async function usageSeries(
  store: Pick<AccountingStore, 'usage' | 'minutes'>,
  keyId: string | undefined,
  range: ReturnType<typeof usageRange>,
) {
  const { granularity, from, to } = range;
  const builder = new SeriesBuilder();
  if (granularity === 'day') {
    // Whole days: the day holding `from`, up to the one holding `to` (excluded when `to` is its midnight).
    const last = new Date(Date.parse(to) - 1).toISOString().slice(0, 10);
    for (const row of await store.usage({ keyId, since: from.slice(0, 10) })) {
      if (row.day <= last) builder.add(row.key_id, row.operation, bucketOf.day(row.day), row);
    }
  } else {
    // Whole minutes: the one holding `from`, up to the one holding `to`'s last moment.
    const until = new Date(Math.ceil(Date.parse(to) / 60_000) * 60_000).toISOString().slice(0, 16);
    const rows = await store.minutes({ keyId, since: from.slice(0, 16), until });
    for (const row of rows) {
      builder.add(row.key_id, row.operation, bucketOf[granularity](row.minute), row, row.latency);
    }
  }
  return { granularity, from, to, series: builder.build() };
}
