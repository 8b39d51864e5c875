// Look up and search: a person or company by any identifier, and the people and company searches with
// their filters, a page at a time.
import { ApiError, api, query } from '../api.js';
import { announce, field, fill, h, select, table } from '../dom.js';
import type { Page } from './page.js';

const LOOKUP_PARAMS: Record<string, string[]> = {
  person: [
    'work_email',
    'personal_email',
    'ln_url',
    'ln_slug',
    'id',
    'work_email_sha256',
    'personal_email_sha256',
  ],
  company: ['fqdn', 'website', 'abn', 'ln_url', 'ln_slug', 'id'],
};
const FILTERS: Record<string, string[]> = {
  people: [
    'company_domain',
    'company_id',
    'seniority',
    'department',
    'country',
    'state',
    'location',
    'skills',
  ],
  company: ['industry', 'company_size', 'state', 'country', 'technology', 'revenue'],
};
const COLUMNS: Record<string, string[]> = {
  people: ['person_id', 'name', 'position', 'company_name', 'seniority', 'location'],
  company: ['id', 'name', 'fqdn', 'industries', 'company_size', 'states'],
};

interface SearchPage {
  total: { value: number; relation: string };
  results: Array<Record<string, unknown>>;
  next: string | null;
}

function lookupForm(me: string[]): HTMLElement {
  const kinds = Object.keys(LOOKUP_PARAMS).filter((k) =>
    me.includes(k === 'person' ? 'people:read' : 'company:read'),
  );
  const kind = select('kind', kinds);
  const parameter = select('parameter', LOOKUP_PARAMS[kinds[0] ?? 'person']!);
  kind.addEventListener('change', () =>
    parameter.replaceChildren(...select('p', LOOKUP_PARAMS[kind.value]!).options),
  );
  const value = h('input', { name: 'value', required: true });
  const answer = h('div', { 'aria-live': 'polite', id: 'lookup-answer' });
  const form = h(
    'form',
    { class: 'card', role: 'search', 'aria-labelledby': 'lookup-title' },
    h('h2', { id: 'lookup-title' }, 'Look up'),
    field('Kind', kind),
    field('By', parameter),
    field('Identifier', value),
    h('button', { type: 'submit' }, 'Look up'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const path = kind.value === 'person' ? '/people' : '/company';
    try {
      const record = await api<Record<string, unknown>>(
        'GET',
        `${path}${query({ [parameter.value]: value.value.trim() })}`,
      );
      answer.replaceChildren(
        h('h3', {}, String(record.name ?? record.id)),
        h('pre', { tabindex: 0, class: 'record' }, JSON.stringify(record, null, 2)),
      );
    } catch (error) {
      const text =
        error instanceof ApiError && error.status === 404
          ? 'Nobody on file matches.'
          : (error as Error).message;
      answer.replaceChildren(h('p', {}, text));
    }
  });
  return h('div', {}, form, answer);
}

function searchForm(entities: string[]): HTMLElement {
  const entity = select('entity', entities);
  const q = h('input', { name: 'q', type: 'search' });
  const filterName = select('filter', FILTERS[entities[0]!]!);
  entity.addEventListener('change', () =>
    filterName.replaceChildren(...select('f', FILTERS[entity.value]!).options),
  );
  const filterValue = h('input', { name: 'filter-value' });
  const results = h('div', { 'aria-live': 'polite', id: 'search-results' });
  const run = async (cursor?: string) => {
    const filters =
      filterValue.value.trim() === '' ? undefined : { [filterName.value]: filterValue.value.trim() };
    const body = {
      ...(q.value.trim() ? { q: q.value.trim() } : {}),
      ...(filters ? { filters } : {}),
      size: 25,
      ...(cursor ? { cursor } : {}),
    };
    const page = await api<SearchPage>('POST', `/v1/${entity.value}/search`, body);
    const columns = COLUMNS[entity.value]!;
    const more =
      page.next === null
        ? null
        : h(
            'button',
            {
              type: 'button',
              onclick: () => run(page.next!).catch((e: Error) => announce(e.message, 'error')),
            },
            'Next page',
          );
    fill(
      results,
      h(
        'p',
        { id: 'search-total' },
        `${page.total.relation === 'gte' ? 'At least ' : ''}${page.total.value} found.`,
      ),
      table(
        'Search results',
        columns,
        page.results.map((r) =>
          columns.map((c) => (Array.isArray(r[c]) ? (r[c] as unknown[]).join(', ') : String(r[c] ?? ''))),
        ),
      ),
      more,
    );
  };
  const form = h(
    'form',
    { class: 'card', role: 'search', 'aria-labelledby': 'search-title' },
    h('h2', { id: 'search-title' }, 'Search'),
    field('Search', entity),
    field('Words', q),
    field('Filter', filterName),
    field('Filter value', filterValue),
    h('button', { type: 'submit' }, 'Search'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run().catch((e: Error) => announce(e.message, 'error'));
  });
  return h('div', {}, form, results);
}

export const lookupPage: Page = {
  path: 'lookup',
  title: 'Look up and search',
  scopes: ['people:read', 'company:read'],
  async render(into, me) {
    const entities = ['people', 'company'].filter((e) => me.key.scopes.includes(`${e}:read`));
    into.append(lookupForm(me.key.scopes), searchForm(entities));
  },
};
