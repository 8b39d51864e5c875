// Usage: requests and outcomes per key and day, charted and downloadable as CSV; an admin key picks any
// key (the admin API's series), any other key sees its own (GET /v1/usage).
import { api, query } from '../api.js';
import { lineChart } from '../chart.js';
import { download, field, h, select, table } from '../dom.js';
import type { UsageSeriesPage } from './overview.js';
import { type Page, type SignedIn, toCsv } from './page.js';

const COLUMNS = ['day', 'operation', 'requests', 'matched', 'not_found', 'ambiguous', 'rejected'];
type Row = Record<string, string | number>;

async function rowsOf(me: SignedIn, keyId: string): Promise<Row[]> {
  if (!me.key.scopes.includes('admin')) {
    const usage = await api<{ days: Row[] }>('GET', '/v1/usage');
    return usage.days;
  }
  const from = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
  const page = await api<UsageSeriesPage>(
    'GET',
    `/v1/admin/usage${query({ key: keyId, granularity: 'day', from })}`,
  );
  return page.series
    .flatMap((s) =>
      s.points.map((p) => ({
        day: p.at.slice(0, 10),
        operation: s.operation,
        requests: p.requests,
        matched: p.matched,
        not_found: p.not_found,
        ambiguous: p.ambiguous,
        rejected: p.rejected,
      })),
    )
    .sort((a, b) => a.day.localeCompare(b.day) || a.operation.localeCompare(b.operation));
}

function draw(into: HTMLElement, keyId: string, rows: Row[]): void {
  const days = [...new Set(rows.map((r) => String(r.day)))].sort();
  const sum = (day: string, name: string) =>
    rows.filter((r) => r.day === day).reduce((n, r) => n + Number(r[name]), 0);
  const csv = h(
    'button',
    { type: 'button', onclick: () => download(`usage-${keyId}.csv`, toCsv(COLUMNS, rows)) },
    'Download CSV',
  );
  into.replaceChildren(
    lineChart(
      `Requests per day of ${keyId}`,
      [
        { label: 'requests', points: days.map((day) => ({ at: day, value: sum(day, 'requests') })) },
        { label: 'matched', points: days.map((day) => ({ at: day, value: sum(day, 'matched') })) },
      ],
      // The 30 days the admin series covers (a key's own usage: this month, within them).
      [Date.parse(new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10)), Date.now()],
    ),
    csv,
    table(
      'Usage per day and operation',
      COLUMNS,
      rows.map((r) => COLUMNS.map((c) => String(r[c] ?? ''))),
    ),
  );
}

export const usagePage: Page = {
  path: 'usage',
  title: 'Usage',
  scopes: [],
  async render(into, me) {
    const area = h('div', { 'aria-live': 'polite', id: 'usage-area' });
    if (me.key.scopes.includes('admin')) {
      const { keys } = await api<{ keys: Array<{ id: string; name: string }> }>('GET', '/v1/admin/keys');
      const picker = select(
        'key',
        keys.map((k) => k.id),
        me.key.id,
      );
      for (const option of picker.options)
        option.textContent = `${keys.find((k) => k.id === option.value)?.name} (${option.value})`;
      picker.addEventListener('change', async () => draw(area, picker.value, await rowsOf(me, picker.value)));
      into.append(field('Key', picker));
    }
    into.append(area);
    draw(area, me.key.id, await rowsOf(me, me.key.id));
  },
};
