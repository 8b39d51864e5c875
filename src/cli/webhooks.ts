// enrich webhooks list|show|deliveries|retry|disable [--json]: every key's webhook endpoints, for the operator,
// read from and written to the local store (never a secret shown).
import type { Command } from 'commander';
import type { Store } from '../store/store.js';
import type { Delivery, StoredEndpoint } from '../store/webhooks.js';
import { UsageError, wholeNumber, withOpenStore, withStore } from './options.js';
import { printable } from './printable.js';
import { formatTable } from './table.js';

const STATUSES = ['pending', 'delivered', 'failed'] as const;

/** An endpoint as the operator sees it: whose, where, what, in what state; never its secret. */
const shown = (e: StoredEndpoint) => ({
  id: e.id,
  key_id: e.key_id,
  url: e.url,
  types: e.types,
  watchlist: e.watchlist,
  description: e.description,
  disabled: e.disabled,
  disabled_reason: e.disabled_reason,
  failing_since: e.failing_since,
  created_at: e.created_at,
});

const print = (text: string) => process.stdout.write(text);
const printJson = (value: unknown) => print(`${JSON.stringify(value, null, 2)}\n`);

async function endpointOf(store: Store, id: string): Promise<StoredEndpoint> {
  const endpoint = await store.getEndpoint(id);
  if (!endpoint) throw new UsageError(`no webhook endpoint ${id}`);
  return endpoint;
}

const state = (e: StoredEndpoint) => (e.disabled ? `disabled (${e.disabled_reason})` : 'enabled');

function deliveryRows(deliveries: Delivery[]): string[][] {
  return deliveries.map((d) => {
    const last = d.attempts.at(-1);
    const answer = last
      ? last.status_code === null
        ? printable(last.error ?? 'no answer')
        : String(last.status_code)
      : '';
    return [
      d.id,
      d.event_id,
      d.event_type,
      d.status,
      String(d.attempts.length),
      answer,
      d.next_attempt_at ?? '',
    ];
  });
}

export function registerWebhooks(program: Command) {
  const webhooks = program
    .command('webhooks')
    .description("every key's webhook endpoints and their deliveries");

  withStore(webhooks.command('list'))
    .description('list every endpoint: its key, URL, event types and state')
    .option('--json', 'print a JSON array')
    .action(async (opts) => {
      await withOpenStore(opts, async (store) => {
        const endpoints = await store.listEndpoints();
        if (opts.json) return printJson(endpoints.map(shown));
        const rows = endpoints.map((e) => [e.id, e.key_id, printable(e.url), e.types.join(','), state(e)]);
        print(formatTable(['ID', 'KEY', 'URL', 'TYPES', 'STATE'], rows));
      });
    });

  withStore(webhooks.command('show'))
    .description('show one endpoint and how many deliveries it has pending')
    .argument('<id>', 'the endpoint id (wh_…)')
    .option('--json', 'print JSON')
    .action(async (id: string, opts) => {
      await withOpenStore(opts, async (store) => {
        const endpoint = await endpointOf(store, id);
        const pending = await store.listDeliveries(id, { status: 'pending', limit: 1001 });
        const count = pending.length > 1000 ? 'over 1000' : String(pending.length);
        if (opts.json) return printJson({ ...shown(endpoint), pending: pending.length });
        const lines = Object.entries(shown(endpoint)).map(([name, value]) => [
          name,
          printable(Array.isArray(value) ? value.join(', ') : String(value ?? '')),
        ]);
        print(formatTable(['FIELD', 'VALUE'], [...lines, ['pending', count]]));
      });
    });

  withStore(webhooks.command('deliveries'))
    .description("list an endpoint's deliveries, oldest first, with their last answer")
    .argument('<id>', 'the endpoint id (wh_…)')
    .option('--status <status>', `only ${STATUSES.join(', ')}`)
    .option('--after <delivery>', 'only deliveries after this one (whd_…)')
    .option('--limit <n>', 'at most this many', wholeNumber(1), 100)
    .option('--json', 'print a JSON array, attempts included')
    .action(async (id: string, opts) => {
      if (opts.status !== undefined && !STATUSES.includes(opts.status)) {
        throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
      }
      await withOpenStore(opts, async (store) => {
        await endpointOf(store, id);
        const deliveries = await store.listDeliveries(id, {
          status: opts.status,
          after: opts.after,
          limit: opts.limit,
        });
        if (opts.json) return printJson(deliveries);
        const header = ['ID', 'EVENT', 'TYPE', 'STATUS', 'ATTEMPTS', 'LAST ANSWER', 'NEXT ATTEMPT'];
        print(formatTable(header, deliveryRows(deliveries)));
      });
    });

  withStore(webhooks.command('retry'))
    .description('attempt a delivery again now (a running server attempts it within a second)')
    .argument('<id>', 'the endpoint id (wh_…)')
    .argument('<delivery>', 'the delivery id (whd_…)')
    .option('--json', 'print JSON')
    .action(async (id: string, delivery: string, opts) => {
      await withOpenStore(opts, async (store) => {
        await endpointOf(store, id);
        if (!(await store.retryDelivery(id, delivery, new Date()))) {
          throw new UsageError(`endpoint ${id} has no delivery ${delivery}`);
        }
        if (opts.json) return printJson({ id: delivery, status: 'pending' });
        print(`Delivery ${delivery} is due again now.\n`);
      });
    });

  withStore(webhooks.command('disable'))
    .description('stop delivering to an endpoint (its owner enables it again with PATCH disabled: false)')
    .argument('<id>', 'the endpoint id (wh_…)')
    .option('--json', 'print the endpoint as JSON')
    .action(async (id: string, opts) => {
      await withOpenStore(opts, async (store) => {
        await endpointOf(store, id);
        await store.updateEndpoint(id, { disabled: 'manual' });
        const endpoint = await endpointOf(store, id);
        if (opts.json) return printJson(shown(endpoint));
        print(`Disabled webhook endpoint ${id} (${printable(endpoint.url)}).\n`);
      });
    });
}
