// The rule every disclosed record follows: its accounting is committed before its bytes go out. Replies
// decided in one event-loop turn — lookups, bulk answers, chunks of a stream — are held, their records
// written with one commit at the turn's end, and only then sent.
import type { Accounting } from '../accounting/accounting.js';

/** A reply waiting for the end of its turn. */
export interface HeldReply {
  /** True when it appended accounting records: a failed commit must refuse it. */
  readonly keyed: boolean;
  send(): void;
  /** Answers 503 instead (or ends a stream with an error line): its records could not be kept. */
  refuse(): void;
}

/**
 * Holds the replies of a turn and releases them together. Sending a turn's replies together also costs
 * the kernel fewer wake-ups of the clients than one at a time.
 */
export class TurnRelease {
  private held: HeldReply[] = [];

  constructor(private readonly accounting: Accounting | undefined) {}

  /** Sends `reply` at the end of this turn, once the turn's accounting is committed. */
  hold(reply: HeldReply): void {
    if (this.held.length === 0) setImmediate(this.release);
    this.held.push(reply);
  }

  /** The end of a turn: commits its records, then sends its replies (503s if the records could not be kept). */
  private readonly release = (): void => {
    const held = this.held;
    this.held = [];
    try {
      this.accounting?.commit();
    } catch {
      // Logged by the journal's health, once when the failure starts and once when it ends.
      for (const reply of held) {
        if (reply.keyed) reply.refuse();
        else reply.send();
      }
      return;
    }
    for (const reply of held) reply.send();
  };
}
