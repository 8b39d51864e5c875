// Audit (admin): every lookup that disclosed a person or company, found by any of its identifiers — when,
// which key, which operation — for a privacy request; exported as CSV.
import { api, apiText, query } from '../api.js';
import { announce, download, field, h, select, table } from '../dom.js';
import type { Page } from './page.js';

interface AuditPage {
  record_ids: string[] | null;
  entries: Array<{
    at: string;
    key_id: string;
    key_name: string | null;
    operation: string;
    params: string[];
    matched: string[];
    status: number;
  }>;
  next_after: string | null;
}

export const auditPage: Page = {
  path: 'audit',
  title: 'Audit',
  scopes: ['admin'],
  async render(into) {
    const kind = select('kind', ['person', 'company']);
    const identifier = h('input', {
      name: 'identifier',
      required: true,
      placeholder: 'an e-mail, LinkedIn URL, domain, ABN or id',
    });
    const results = h('div', { 'aria-live': 'polite' });
    const form = h(
      'form',
      { class: 'card', role: 'search', 'aria-label': 'Audit search' },
      field('Who', kind),
      field('Identifier', identifier),
      h('button', { type: 'submit' }, 'Find lookups'),
    );
    const params = () => ({ [kind.value]: identifier.value.trim(), limit: '1000' });
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        const page = await api<AuditPage>('GET', `/v1/admin/audit${query(params())}`);
        const csv = h('button', { type: 'button' }, 'Export CSV');
        csv.addEventListener('click', async () => {
          download('audit.csv', await apiText('GET', `/v1/admin/audit${query(params())}`, 'text/csv'));
        });
        results.replaceChildren(
          h(
            'p',
            {},
            page.record_ids?.length
              ? `Records: ${page.record_ids.join(', ')}`
              : 'No record on file has this identifier.',
          ),
          h(
            'p',
            { id: 'audit-count' },
            `${page.entries.length} lookup${page.entries.length === 1 ? '' : 's'} disclosed it${page.next_after ? ' (first 1,000)' : ''}.`,
          ),
          csv,
          table(
            'Lookups that disclosed it',
            ['when', 'key', 'operation', 'parameters', 'status'],
            page.entries.map((e) => [
              e.at,
              `${e.key_name ?? ''} (${e.key_id})`,
              e.operation,
              e.params.join(', '),
              String(e.status),
            ]),
          ),
        );
      } catch (error) {
        announce((error as Error).message, 'error');
      }
    });
    into.append(form, results);
  },
};
