// Which endpoint is owed which event: the pure half of turning the change log into deliveries.
import type { LoggedEvent } from '../changes/events.js';
import { eventId, renderEvent } from '../changes/render.js';
import type { NewDelivery, StoredEndpoint } from '../store/webhooks.js';

/**
 * Tells which of a page of events a watchlist watches (their sequence numbers): the people and companies
 * of its entries, a company entry's joiners and leavers too. Given by the watchlists' code.
 */
export interface WatchlistFilter {
  watched(watchlistId: string, events: readonly LoggedEvent[]): Promise<ReadonlySet<number>>;
}

/**
 * The deliveries a page of events makes, in event order: each enabled endpoint gets the events of its
 * types made after it was, of its watchlist's people and companies when it has one (none without a filter).
 */
export async function planDeliveries(
  events: readonly LoggedEvent[],
  endpoints: readonly StoredEndpoint[],
  watchlists: WatchlistFilter | undefined,
): Promise<NewDelivery[]> {
  const watched = new Map<string, ReadonlySet<number>>();
  for (const endpoint of endpoints) {
    const list = endpoint.watchlist;
    if (list === null || watched.has(list)) continue;
    watched.set(list, watchlists ? await watchlists.watched(list, events) : new Set());
  }
  const deliveries: NewDelivery[] = [];
  for (const event of events) {
    let body: string | undefined;
    for (const endpoint of endpoints) {
      if (endpoint.disabled || event.seq <= endpoint.after_seq || !endpoint.types.includes(event.type))
        continue;
      if (endpoint.watchlist !== null && !watched.get(endpoint.watchlist)!.has(event.seq)) continue;
      body ??= JSON.stringify(renderEvent(event));
      deliveries.push({
        endpoint_id: endpoint.id,
        event_id: eventId(event.seq),
        event_type: event.type,
        body,
      });
    }
  }
  return deliveries;
}
