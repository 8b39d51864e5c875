// Overview (admin): traffic, match rate, latency and refusals over the last hour, day or 30 days, as charts;
// records on file, the last import and refresh, and the change log.
import { api, query } from '../api.js';
import { lineChart, type Series } from '../chart.js';
import { formatNumber, h, select, table } from '../dom.js';
import type { Page } from './page.js';

interface Point {
  at: string;
  requests: number;
  matched: number;
  not_found: number;
  ambiguous: number;
  rejected: number;
  p50_ms?: number | null;
  p99_ms?: number | null;
}
export interface UsageSeriesPage {
  granularity: string;
  series: Array<{ key_id: string; operation: string; points: Point[] }>;
}
interface Stats {
  records: Record<string, number>;
  store_bytes: number;
  last_import: string | null;
  last_refresh: string | null;
  events: { first: number; last: number; count: number } | null;
}

const PERIODS = {
  'last hour': { granularity: 'minute', ms: 3600_000, seconds: 60 },
  'last day': { granularity: 'hour', ms: 86_400_000, seconds: 3600 },
  'last 30 days': { granularity: 'day', ms: 30 * 86_400_000, seconds: 86_400 },
} as const;
type Period = keyof typeof PERIODS;

/** Every series' points summed per time: the whole service's traffic. */
function totals(page: UsageSeriesPage): Point[] {
  const byTime = new Map<string, Point>();
  for (const { points } of page.series) {
    for (const p of points) {
      const sum = byTime.get(p.at) ?? {
        at: p.at,
        requests: 0,
        matched: 0,
        not_found: 0,
        ambiguous: 0,
        rejected: 0,
      };
      sum.requests += p.requests;
      sum.matched += p.matched;
      sum.not_found += p.not_found;
      sum.ambiguous += p.ambiguous;
      sum.rejected += p.rejected;
      // The slowest series' percentile: an upper bound of the service's (buckets do not add up otherwise).
      for (const name of ['p50_ms', 'p99_ms'] as const) {
        if (p[name] != null) sum[name] = Math.max(sum[name] ?? 0, p[name]!);
      }
      byTime.set(p.at, sum);
    }
  }
  return [...byTime.values()].sort((a, b) => a.at.localeCompare(b.at));
}

async function charts(into: HTMLElement, period: Period): Promise<void> {
  const { granularity, ms, seconds } = PERIODS[period];
  const now = Date.now();
  const from = new Date(now - ms).toISOString();
  const span: [number, number] = [now - ms, now];
  const page = await api<UsageSeriesPage>('GET', `/v1/admin/usage${query({ granularity, from })}`);
  const points = totals(page);
  const series = (label: string, value: (p: Point) => number | null): Series => ({
    label,
    points: points.map((p) => ({ at: p.at, value: value(p) })),
  });
  const all = points.reduce((n, p) => n + p.requests, 0);
  const matched = points.reduce((n, p) => n + p.matched, 0);
  into.replaceChildren(
    h(
      'p',
      { class: 'figures' },
      `${formatNumber(all)} requests, ${all === 0 ? 0 : Math.round((matched / all) * 100)}% matched, over the ${period}.`,
    ),
    lineChart(
      'Requests per second',
      [series('requests/s', (p) => Number((p.requests / seconds).toFixed(3)))],
      span,
    ),
    lineChart(
      'Match rate (%)',
      [series('matched %', (p) => (p.requests === 0 ? null : Math.round((p.matched / p.requests) * 100)))],
      span,
    ),
    ...(granularity === 'day'
      ? []
      : [
          lineChart(
            'Latency (ms)',
            [series('p50', (p) => p.p50_ms ?? null), series('p99', (p) => p.p99_ms ?? null)],
            span,
          ),
        ]),
    lineChart(
      'Outcomes other than a match',
      [
        series('not found (404)', (p) => p.not_found),
        series('ambiguous (409)', (p) => p.ambiguous),
        series('refused (other 4xx)', (p) => p.rejected),
      ],
      span,
    ),
  );
}

export const overviewPage: Page = {
  path: 'overview',
  title: 'Overview',
  scopes: ['admin'],
  async render(into) {
    const stats = await api<Stats>('GET', '/v1/admin/stats');
    const period = select('period', Object.keys(PERIODS), 'last hour');
    const chartArea = h('div', { class: 'charts', 'aria-live': 'polite' });
    period.addEventListener('change', () => void charts(chartArea, period.value as Period));
    into.append(
      h(
        'section',
        { 'aria-labelledby': 'store-title', class: 'card' },
        h('h2', { id: 'store-title' }, 'Store'),
        table(
          'Store',
          ['what', 'value'],
          [
            ...Object.entries(stats.records).map(([entity, n]) => [`${entity} on file`, formatNumber(n)]),
            ['store size', `${formatNumber(Math.round(stats.store_bytes / 1048576))} MiB`],
            ['last import', stats.last_import ?? 'not recorded'],
            ['last refresh', stats.last_refresh ?? 'not recorded'],
            ['change events kept', stats.events === null ? 'none' : formatNumber(stats.events.count)],
          ],
        ),
      ),
      h(
        'section',
        { 'aria-labelledby': 'traffic-title', class: 'card' },
        h('h2', { id: 'traffic-title' }, 'Traffic'),
        h(
          'div',
          { class: 'field' },
          h('label', { for: 'period' }, 'Period'),
          Object.assign(period, { id: 'period' }),
        ),
        chartArea,
      ),
    );
    await charts(chartArea, 'last hour');
  },
};
