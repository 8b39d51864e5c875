// The dispatcher a server runs (the primary process, or the only one): its settings from the config.
import type { Metrics } from '../metrics.js';
import type { ChangeStore } from '../store/changes.js';
import type { WatchlistStore } from '../store/watchlists.js';
import type { WebhookStore } from '../store/webhooks.js';
import { WebhookDispatcher } from './dispatcher.js';
import { webhookPoster } from './post.js';

export interface DispatchSettings {
  webhookRetrySchedule: readonly number[];
  webhookAllowPrivate: boolean;
}

/** Starts dispatching the change log's events to webhook endpoints. Closing it lets attempts under way finish and be recorded. */
export function startDispatch(
  settings: DispatchSettings,
  store: WebhookStore & WatchlistStore & ChangeStore,
  metrics: Pick<Metrics, 'webhookDeliveries'>,
  onError: (error: unknown) => void,
): WebhookDispatcher {
  const dispatcher = new WebhookDispatcher({
    store,
    changes: store,
    poster: webhookPoster({ allowPrivate: settings.webhookAllowPrivate }),
    schedule: settings.webhookRetrySchedule,
    watchlists: store,
    onError,
    onOutcome: (outcome) => metrics.webhookDeliveries.inc({ outcome }),
  });
  dispatcher.start();
  return dispatcher;
}
