// A small SVG line chart: series over time, drawn from numbers with no library, with its figures also given
// as a table (what a screen reader reads, and what a test compares with the API).
import { h, table } from './dom.js';

export interface Series {
  label: string;
  points: Array<{ at: string; value: number | null }>;
}

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 640;
const HEIGHT = 200;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };

function svg(tag: string, attributes: Record<string, string | number>): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

/**
 * A chart of `series` sharing their x (time) axis, with a table of the same figures. `span` (ms since the
 * epoch) is the period the axis shows; by default, from the first point to the last.
 */
export function lineChart(title: string, series: Series[], span?: [number, number]): HTMLElement {
  const times = [...new Set(series.flatMap((s) => s.points.map((p) => p.at)))].sort();
  const [start, end] = span ?? [Date.parse(times[0] ?? ''), Date.parse(times.at(-1) ?? '')];
  const values = series.flatMap((s) => s.points.map((p) => p.value ?? 0));
  const max = Math.max(1, ...values);
  const x = (at: string) =>
    PAD.left +
    (end > start ? ((Date.parse(at) - start) / (end - start)) * (WIDTH - PAD.left - PAD.right) : 0);
  const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
  const y = (v: number) => HEIGHT - PAD.bottom - (v / max) * (HEIGHT - PAD.top - PAD.bottom);
  const chart = svg('svg', {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    class: 'chart',
    role: 'img',
    'aria-label': title,
  });
  chart.appendChild(svg('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(0), y2: y(0), class: 'axis' }));
  for (const tick of [0, max / 2, max]) {
    const label = svg('text', { x: PAD.left - 6, y: y(tick) + 4, class: 'tick', 'text-anchor': 'end' });
    label.textContent = Number.isInteger(tick) ? String(tick) : tick.toFixed(1);
    chart.appendChild(label);
  }
  if (times.length > 0) {
    for (const [at, anchor] of [
      [start, 'start'],
      [end, 'end'],
    ] as const) {
      const x = anchor === 'start' ? PAD.left : WIDTH - PAD.right;
      const tick = svg('text', { x, y: HEIGHT - 8, class: 'tick', 'text-anchor': anchor });
      tick.textContent = when(at);
      chart.appendChild(tick);
    }
  }
  series.forEach((s, i) => {
    const drawn = s.points.filter((p) => p.value !== null);
    const d = drawn
      .map((p, j) => `${j === 0 ? 'M' : 'L'}${x(p.at).toFixed(1)},${y(p.value!).toFixed(1)}`)
      .join(' ');
    if (drawn.length === 1) {
      const p = drawn[0]!;
      chart.appendChild(svg('circle', { cx: x(p.at), cy: y(p.value!), r: 3, class: `series s${i % 6}` }));
    } else if (d !== '') chart.appendChild(svg('path', { d, class: `series s${i % 6}` }));
  });
  const legend = h(
    'ul',
    { class: 'legend' },
    ...series.map((s, i) => h('li', { class: `s${i % 6}` }, s.label)),
  );
  const rows = times.map((at) => [
    at,
    ...series.map((s) => {
      const value = s.points.find((p) => p.at === at)?.value;
      return value === null || value === undefined ? '' : String(value);
    }),
  ]);
  return h(
    'figure',
    { class: 'chart-figure' },
    h('figcaption', {}, title),
    times.length === 0 ? h('p', {}, 'Nothing in this period.') : (chart as unknown as HTMLElement),
    legend,
    h(
      'details',
      {},
      h('summary', {}, 'Figures'),
      table(title, ['time', ...series.map((s) => s.label)], rows),
    ),
  );
}
