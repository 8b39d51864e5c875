// Which endpoint is owed which event: the pure half of turning the change log into deliveries.
import type { LoggedEvent } from '../changes/events.js';
import { eventId, renderEvent } from '../changes/render.js';
import { type WatchedLookup, watchedEvents } from '../changes/watch.js';
import type { NewDelivery, StoredEndpoint } from '../store/webhooks.js';

/**
 * The deliveries a page of events makes, in event order: each enabled endpoint gets the events of its
 * types made after it was, only those of its watchlist's people and companies when it has one.
 */
export async function planDeliveries(
  events: readonly LoggedEvent[],
  endpoints: readonly StoredEndpoint[],
  watchlists: WatchedLookup,
): Promise<NewDelivery[]> {
  const watched = new Map<string, ReadonlySet<number>>();
  for (const endpoint of endpoints) {
    const list = endpoint.watchlist;
    if (list === null || watched.has(list)) continue;
    watched.set(list, new Set((await watchedEvents(watchlists, list, events)).map((event) => event.seq)));
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
