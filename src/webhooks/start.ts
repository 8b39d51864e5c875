// The dispatcher a server runs (the primary process, or the only one): its settings from the config, on
// this thread or on a thread of its own.
import type { Metrics } from '../metrics.js';
import type { ChangeStore } from '../store/changes.js';
import type { StoreLocation } from '../store/open.js';
import type { WatchlistStore } from '../store/watchlists.js';
import type { WebhookStore } from '../store/webhooks.js';
import { startWorker } from '../worker.js';
import type { DispatchThreadInput, FromDispatchThread } from './dispatch-thread.js';
import { WebhookDispatcher } from './dispatcher.js';
import { webhookPoster } from './post.js';

export interface DispatchSettings {
  webhookRetrySchedule: readonly number[];
  webhookAllowPrivate: boolean;
}

/** What a server holds of its dispatcher: woken when an endpoint is created or a delivery retried. */
export interface Dispatching {
  wake(): void;
  /** Stops claiming; attempts under way finish (each within its timeout) and are recorded. */
  close(): Promise<void>;
}

type Outcome = 'delivered' | 'retrying' | 'failed';

/** Starts dispatching the change log's events to webhook endpoints, on this thread. */
export function startDispatch(
  settings: DispatchSettings,
  store: WebhookStore & WatchlistStore & ChangeStore,
  onOutcome: (outcome: Outcome) => void,
  onError: (error: unknown) => void,
): WebhookDispatcher {
  const dispatcher = new WebhookDispatcher({
    store,
    changes: store,
    poster: webhookPoster({ allowPrivate: settings.webhookAllowPrivate }),
    schedule: settings.webhookRetrySchedule,
    watchlists: store,
    onError,
    onOutcome,
  });
  dispatcher.start();
  return dispatcher;
}

/** Counts each attempt's outcome in the server's metrics. */
export const countOutcomes =
  (metrics: Pick<Metrics, 'webhookDeliveries'>) =>
  (outcome: Outcome): void =>
    void metrics.webhookDeliveries.inc({ outcome });

/** How long a dispatch thread that died waits before it is started again. */
const RESTART_MS = 1000;

/**
 * Starts dispatching on a worker thread of its own, with its own connection to the store at `location`
 * (a file or a PostgreSQL server, not an in-memory store) and a lower scheduling priority: deliveries then
 * neither wait behind the lookups this thread answers nor take their turn. A thread that dies is started
 * again after a second (what it had claimed is claimed again when its lease ends).
 */
export function startDispatchThread(
  location: StoreLocation,
  settings: DispatchSettings,
  onOutcome: (outcome: Outcome) => void,
  onError: (error: unknown) => void,
): Dispatching {
  const input: DispatchThreadInput = {
    location: { dbPath: location.dbPath, databaseUrl: location.databaseUrl },
    settings: {
      webhookRetrySchedule: [...settings.webhookRetrySchedule],
      webhookAllowPrivate: settings.webhookAllowPrivate,
    },
  };
  let closing: Promise<void> | undefined;
  let restart: NodeJS.Timeout | undefined;
  const start = () => {
    const worker = startWorker(import.meta.url, './dispatch-thread', input);
    worker.on('message', (message: FromDispatchThread) => {
      if ('outcomes' in message) for (const outcome of message.outcomes) onOutcome(outcome);
      else onError(Object.assign(new Error(message.error.message), { stack: message.error.stack }));
    });
    worker.on('error', onError);
    worker.on('exit', (code) => {
      if (closing) return;
      onError(new Error(`the webhook dispatch thread stopped (exit code ${code}); starting it again`));
      restart = setTimeout(() => (current = start()), RESTART_MS);
    });
    return worker;
  };
  let current = start();
  return {
    wake: () => current.postMessage('wake'),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        clearTimeout(restart);
        current.once('exit', () => resolve());
        current.postMessage('close');
      });
      return closing;
    },
  };
}
