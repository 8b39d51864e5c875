// Worker ↔ primary calls for limits over cluster IPC: numbered requests, batched per event-loop turn.
import { ProblemError } from '../../errors.js';
import type { ApiKey } from '../../store/keys.js';

/** What a worker asks of the primary, which owns every bucket and quota counter of the machine. */
export type LimitCall =
  | { id: number; op: 'take'; keyId: string; rate: number; cost: number }
  | { id: number; op: 'reserve'; key: ApiKey }
  | { id: number; op: 'settle'; ticket: number; matched: boolean }
  | { id: number; op: 'reserveItems'; key: ApiKey; items: number }
  | { id: number; op: 'settleItems'; ticket: number; matched: number };

/** The answer to one call (settlements are not answered): a value, or the problem to throw. */
export interface LimitReply {
  id: number;
  value?: unknown;
  problem?: {
    code: ProblemError['code'];
    detail: string;
    extensions: object;
    headers: Record<string, string>;
  };
}

/** Every limit message, either way, is one batch under this property; other messages pass by. */
export interface LimitMessage {
  enrichLimits: LimitCall[] | LimitReply[];
}

export const isLimitMessage = (message: unknown): message is LimitMessage =>
  typeof message === 'object' && message !== null && Array.isArray((message as LimitMessage).enrichLimits);

/** The problem of a failed call, as it crosses the process boundary. */
export const problemReply = (id: number, problem: ProblemError): LimitReply => ({
  id,
  problem: {
    code: problem.code,
    detail: problem.detail,
    extensions: problem.extensions,
    headers: problem.headers,
  },
});

/** The two ends of an IPC channel as a worker sees them: `process` in a cluster worker. */
export interface LimitPort {
  send(message: LimitMessage): void;
  onMessage(listener: (message: unknown) => void): void;
}

/** A worker's own process as its port to the primary. */
export const processPort = (): LimitPort => ({
  send: (message) => {
    if (!process.send) throw new Error('not a cluster worker: no IPC channel to the primary');
    process.send(message);
  },
  onMessage: (listener) => process.on('message', listener),
});

interface Waiter {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

const primaryGone = () =>
  new ProblemError(
    'unavailable',
    'Rate limits cannot be checked at the moment; retry shortly.',
    {},
    {
      'retry-after': '1',
    },
  );

/**
 * Calls to the primary. Calls made in one event-loop turn travel as one message, so a busy worker
 * pays one IPC write per turn rather than one per request; each is still decided on its own.
 */
export class LimitChannel {
  private sequence = 0;
  private readonly waiting = new Map<number, Waiter>();
  private outbox: LimitCall[] = [];

  constructor(
    private readonly port: LimitPort,
    private readonly timeoutMs = 5_000,
  ) {
    port.onMessage((message) => {
      if (isLimitMessage(message))
        for (const reply of message.enrichLimits as LimitReply[]) this.answer(reply);
    });
  }

  /** Sends a call and resolves with the primary's answer; a 503 if it has none in time. */
  call(call: DistributiveOmit<LimitCall, 'id'>): Promise<unknown> {
    const id = ++this.sequence;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(primaryGone());
      }, this.timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      this.post({ ...call, id } as LimitCall);
    });
  }

  /** Sends a call that has no answer. */
  notify(call: DistributiveOmit<LimitCall, 'id'>): void {
    this.post({ ...call, id: ++this.sequence } as LimitCall);
  }

  /** Sends what is queued now rather than at the end of this turn. */
  flush(): void {
    const calls = this.outbox;
    if (calls.length === 0) return;
    this.outbox = [];
    try {
      this.port.send({ enrichLimits: calls });
    } catch {
      for (const { id } of calls) this.answer({ id, problem: problemReply(id, primaryGone()).problem });
    }
  }

  private post(call: LimitCall): void {
    if (this.outbox.length === 0) setImmediate(() => this.flush());
    this.outbox.push(call);
  }

  private answer(reply: LimitReply): void {
    const waiter = this.waiting.get(reply.id);
    if (!waiter) return;
    this.waiting.delete(reply.id);
    clearTimeout(waiter.timer);
    if (!reply.problem) {
      waiter.resolve(reply.value);
      return;
    }
    const { code, detail, extensions, headers } = reply.problem;
    waiter.reject(new ProblemError(code, detail, extensions as Record<string, unknown>, headers));
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
