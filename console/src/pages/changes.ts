// Changes: the feed of changes, the key's watchlists and webhook endpoints, and each endpoint's failed
// deliveries with a retry.
import { api, query } from '../api.js';
import { announce, h, table } from '../dom.js';
import type { Page } from './page.js';

interface Event {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}
interface Endpoint {
  id: string;
  url: string;
  types: string[];
  disabled: boolean;
  disabled_reason: string | null;
}
interface Delivery {
  id: string;
  event_type: string;
  status: string;
  attempts?: Array<{ at: string; status_code: number | null; error: string | null }>;
}

const recordOf = (data: Record<string, unknown>) => String(data.person_id ?? data.company_id ?? '');

async function failedDeliveries(endpoint: Endpoint, canWrite: boolean): Promise<HTMLElement> {
  const { data } = await api<{ data: Delivery[] }>(
    'GET',
    `/v1/webhooks/${endpoint.id}/deliveries${query({ status: 'failed' })}`,
  );
  return table(
    `Failed deliveries to ${endpoint.url}`,
    ['delivery', 'event', 'last attempt', 'retry'],
    data.map((d) => {
      const last = d.attempts?.at(-1);
      const retry = h(
        'button',
        { type: 'button', class: 'small', 'aria-label': `Retry delivery ${d.id}` },
        'Retry',
      );
      retry.addEventListener('click', async () => {
        try {
          await api('POST', `/v1/webhooks/${endpoint.id}/deliveries/${d.id}/retry`);
          retry.replaceWith('retrying');
          announce(`Delivery ${d.id} will be tried again.`);
        } catch (error) {
          announce((error as Error).message, 'error');
        }
      });
      return [
        d.id,
        d.event_type,
        last ? `${last.at} ${last.status_code ?? last.error ?? ''}` : '',
        canWrite ? retry : '',
      ];
    }),
  );
}

export const changesPage: Page = {
  path: 'changes',
  title: 'Changes',
  scopes: ['changes:read'],
  async render(into, me) {
    const canWrite = me.key.scopes.includes('changes:write');
    const feed = await api<{ data: Event[] }>('GET', `/v1/changes${query({ limit: '50' })}`);
    const watchlists = await api<{ data: Array<{ id: string; name: string; size: number }> }>(
      'GET',
      '/v1/watchlists',
    );
    const hooks = await api<{ data: Endpoint[] }>('GET', '/v1/webhooks');
    into.append(
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'feed-title' },
        h('h2', { id: 'feed-title' }, 'Latest changes'),
        table(
          'The feed (oldest first)',
          ['when', 'type', 'record'],
          feed.data.map((e) => [e.timestamp, e.type, recordOf(e.data)]),
        ),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'watchlists-title' },
        h('h2', { id: 'watchlists-title' }, 'Watchlists'),
        table(
          'Watchlists',
          ['name', 'id', 'entries'],
          watchlists.data.map((w) => [w.name, w.id, String(w.size)]),
        ),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'webhooks-title' },
        h('h2', { id: 'webhooks-title' }, 'Webhooks'),
        table(
          'Webhook endpoints',
          ['url', 'events', 'state'],
          hooks.data.map((e) => [
            e.url,
            e.types.join(', '),
            e.disabled ? `disabled (${e.disabled_reason})` : 'enabled',
          ]),
        ),
        ...(await Promise.all(hooks.data.map((e) => failedDeliveries(e, canWrite)))),
      ),
    );
  },
};
