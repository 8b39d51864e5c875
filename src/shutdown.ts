// How a server process stops on SIGTERM/SIGINT: one line as it starts to, and a last one saying what it flushed.
import cluster from 'node:cluster';

/** What a stopping server wrote out on its way down. */
export interface Flushed {
  /** Lookups the accounting journal held that were folded into the store (audit log, usage, quota). */
  lookupsFolded: number;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Calls `stop` on the first SIGTERM or SIGINT only. Later ones — a terminal's Ctrl-C reaches the whole
 * process group, then a cluster primary forwards SIGTERM to its workers — are absorbed: the stop under
 * way is neither logged again nor cut short (it is bounded by the shutdown timeout).
 */
export function onShutdownSignal(stop: (signal: NodeJS.Signals) => void): void {
  let received = false;
  for (const signal of SIGNALS) {
    process.on(signal, () => {
      if (received) return;
      received = true;
      stop(signal);
    });
  }
}

/** The last line of a shutdown: what was flushed, over how many workers when there were several. */
export function stoppedMessage(flushed: Flushed, workers?: number): string {
  const lookups = `${flushed.lookupsFolded} ${flushed.lookupsFolded === 1 ? 'lookup' : 'lookups'}`;
  const from = workers === undefined ? 'the accounting journal' : `${workers} workers' accounting journals`;
  return `stopped: ${lookups} folded from ${from} into the store, store closed`;
}

/** A worker's report to its primary, sent as it exits. */
interface StoppedMessage {
  enrichStopped: Flushed;
}

export const isStoppedMessage = (message: unknown): message is StoppedMessage =>
  typeof message === 'object' && message !== null && 'enrichStopped' in message;

/** In a cluster worker: tells the primary what this worker flushed, then exits once the message is out. */
export function reportToPrimary(flushed: Flushed): void {
  const message: StoppedMessage = { enrichStopped: flushed };
  const exit = () => process.exit(0);
  if (!cluster.isWorker || !process.connected || !process.send) {
    exit(); // the primary is gone: nobody to tell
    return;
  }
  // Exits once the message is out; a channel closed meanwhile hands the callback an error, and it exits.
  process.send(message, undefined, {}, exit);
}
