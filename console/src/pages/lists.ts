// Enrich a list: drop a CSV, see its columns (each one's use changeable) and first rows, start the job on
// the server (POST /v1/lists), watch its progress (rows, matched %, ETA), download the result; past jobs.
import { ApiError, api, apiText, apiUpload, query } from '../api.js';
import { announce, download, field, formatNumber, h, select, table } from '../dom.js';
import type { Page } from './page.js';

const PARAMS: Record<string, string[]> = {
  people: [
    'work_email',
    'personal_email',
    'ln_url',
    'ln_slug',
    'id',
    'work_email_sha256',
    'personal_email_sha256',
    'first_name',
    'last_name',
    'name',
    'company_name',
    'company_domain',
  ],
  companies: ['fqdn', 'website', 'abn', 'ln_url', 'ln_slug', 'id', 'name'],
};
const AUTOMATIC = '(as enrich match guesses)';
const UNUSED = '(not used)';

interface ListJob {
  id: string;
  status: string;
  entity?: string;
  rows?: number | null;
  eta_seconds?: number | null;
  processed?: number;
  matched?: number;
  created_at?: string;
  started_at?: string | null;
  mapping?: Array<{ column: string; params: string[] }> | string;
  problem?: { detail?: string } | string | null;
}

/** The fields of a CSV line (quotes as RFC 4180 has them): enough for a header and a preview. */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted && c === '"' && line[i + 1] === '"') {
      current += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (c === ',' && !quoted) {
      fields.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  fields.push(current);
  return fields;
}

const percent = (n: number, of: number) => (of === 0 ? 0 : Math.round((n / of) * 100));

function progressOf(job: ListJob, startedAt: number): string {
  const rows = job.rows ?? 0;
  const done = job.processed ?? 0;
  const elapsed = (Date.now() - startedAt) / 1000;
  const eta = job.eta_seconds ?? (done > 0 && rows > done ? Math.round(((rows - done) * elapsed) / done) : 0);
  return `${job.status}: ${formatNumber(done)} of ${job.rows == null ? '?' : formatNumber(rows)} rows, ${percent(job.matched ?? 0, done)}% matched${eta > 0 ? `, about ${eta} s left` : ''}.`;
}

async function watch(id: string, into: HTMLElement): Promise<void> {
  const started = Date.now();
  const bar = h('progress', { max: 100, value: 0, 'aria-label': 'Rows matched so far' });
  const line = h('p', { id: 'list-progress', role: 'status' });
  into.replaceChildren(bar, line);
  for (;;) {
    let job: ListJob;
    try {
      job = await api<ListJob>('GET', `/v1/lists/${id}`);
    } catch (error) {
      // The job takes its rows from the key's rate: a progress call may find the bucket empty meanwhile.
      if (!(error instanceof ApiError && error.status === 429)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    line.textContent = progressOf(job, started);
    bar.value = job.rows ? percent(job.processed ?? 0, job.rows) : 0;
    if (job.status === 'done') {
      bar.value = 100;
      into.append(resultButton(job));
      announce('The list is matched: download the result.');
      return;
    }
    if (job.status === 'failed') {
      const problem = typeof job.problem === 'string' ? job.problem : job.problem?.detail;
      announce(`The job failed: ${problem ?? 'see the server log'}`, 'error');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function resultButton(job: ListJob): HTMLElement {
  const button = h(
    'button',
    { type: 'button', 'aria-label': `Download the result of ${job.id}` },
    'Download result',
  );
  button.addEventListener('click', async () => {
    const text = await apiText('GET', `/v1/lists/${job.id}/result`, 'text/csv, application/x-ndjson');
    download(`${job.id}.csv`, text);
  });
  return button;
}

export const listsPage: Page = {
  path: 'lists',
  title: 'Enrich a list',
  scopes: ['people:read', 'company:read'],
  async render(into, me) {
    const entities = ['people', 'companies'].filter((e) =>
      me.key.scopes.includes(e === 'people' ? 'people:read' : 'company:read'),
    );
    const entity = select('entity', entities);
    const file = h('input', { type: 'file', accept: '.csv,text/csv', name: 'file', id: 'list-file' });
    const mapping = h('div', {});
    const progress = h('div', { 'aria-live': 'polite' });
    let chosen: File | undefined;
    let selects: HTMLSelectElement[] = [];
    const showFile = async () => {
      chosen = file.files?.[0];
      if (!chosen) return;
      const head = (await chosen.slice(0, 65_536).text())
        .split(/\r?\n/)
        .slice(0, 6)
        .filter((l) => l !== '');
      const columns = csvFields(head[0] ?? '');
      selects = columns.map((column) => {
        const use = select(`map-${column}`, [AUTOMATIC, UNUSED, ...PARAMS[entity.value]!]);
        use.dataset.column = column;
        use.setAttribute('aria-label', `Use of column ${column}`);
        return use;
      });
      mapping.replaceChildren(
        table(
          'Columns and what each is matched by',
          ['column', 'used as'],
          columns.map((c, i) => [c, selects[i]!]),
        ),
        table('The first rows', columns, head.slice(1).map(csvFields)),
      );
    };
    file.addEventListener('change', () => void showFile());
    entity.addEventListener('change', () => void showFile());
    const form = h(
      'form',
      { class: 'card', 'aria-labelledby': 'upload-title' },
      h('h2', { id: 'upload-title' }, 'Upload'),
      field('Entity', entity),
      h(
        'div',
        { class: 'field drop' },
        h('label', { for: 'list-file' }, 'CSV file (drop it here or choose it)'),
        file,
      ),
      mapping,
      h('button', { type: 'submit' }, 'Start matching'),
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!chosen) return announce('Choose a CSV file first.', 'error');
      const map = selects
        .filter((s) => s.value !== AUTOMATIC)
        .map((s) => `${s.dataset.column}=${s.value === UNUSED ? '' : s.value}`);
      const search = new URLSearchParams(query({ entity: entity.value }).slice(1));
      for (const each of map) search.append('map', each);
      try {
        const job = await apiUpload<ListJob>(`/v1/lists?${search}`, chosen, 'text/csv');
        announce(`Job ${job.id} started.`);
        await watch(job.id, progress);
        await past();
      } catch (error) {
        announce((error as Error).message, 'error');
      }
    });
    const history = h('section', { class: 'card', 'aria-labelledby': 'past-title' });
    const past = async () => {
      const jobs = await api<{ data: ListJob[] }>('GET', '/v1/lists').catch(() => ({
        data: [] as ListJob[],
      }));
      history.replaceChildren(
        h('h2', { id: 'past-title' }, 'Past jobs'),
        table(
          'Past jobs',
          ['created', 'id', 'entity', 'status', 'rows', 'matched', 'result'],
          jobs.data.map((job) => [
            job.created_at ?? '',
            job.id,
            job.entity ?? '',
            job.status,
            job.rows == null ? '' : formatNumber(job.rows),
            `${percent(job.matched ?? 0, job.processed ?? 0)}%`,
            job.status === 'done' ? resultButton(job) : '',
          ]),
        ),
      );
    };
    into.append(form, progress, history);
    await past();
  },
};
