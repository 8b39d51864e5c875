// A change log in memory, for the feed's and the webhooks' tests and the webhooks' bench: events appended by
// hand, pruned by hand, watchers woken.
import type { ChangeEventType, ClassifiedEvent, LoggedEvent } from '../../src/changes/events.js';
import type { ChangeBounds, ChangeStore } from '../../src/store/changes.js';

export class MemoryChanges implements ChangeStore {
  private events: LoggedEvent[] = [];
  private seq = 0;
  private readonly listeners = new Set<() => void>();
  /** Reads made, for tests that check a long poll reads again only when woken. */
  reads = 0;

  /** Appends events as one commit at `at` (now by default) and wakes the watchers. */
  append(events: ClassifiedEvent[], at = new Date()): LoggedEvent[] {
    const logged = events.map(
      (event) => ({ ...event, seq: ++this.seq, at: at.toISOString() }) as LoggedEvent,
    );
    this.events.push(...logged);
    for (const listener of this.listeners) listener();
    return logged;
  }

  async readChanges(after: number, limit: number, types?: readonly ChangeEventType[]) {
    this.reads++;
    // From the first event after `after` (seqs ascend): a bench reading a long log page by page stays linear.
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.events[mid]!.seq > after) high = mid;
      else low = mid + 1;
    }
    const page: LoggedEvent[] = [];
    for (let i = low; i < this.events.length && page.length < limit; i++) {
      const event = this.events[i]!;
      if (types === undefined || types.includes(event.type)) page.push(event);
    }
    return page;
  }

  async changeBounds(): Promise<ChangeBounds> {
    return { first: this.events[0]?.seq ?? 0, last: this.events.at(-1)?.seq ?? 0 };
  }

  watchChanges(listener: () => void) {
    const own = () => listener();
    this.listeners.add(own);
    return () => {
      this.listeners.delete(own);
    };
  }

  get watchers(): number {
    return this.listeners.size;
  }

  changesAppended() {
    return new Map<ChangeEventType, number>();
  }

  async pruneChanges(before: Date) {
    const kept = this.events.filter((event) => Date.parse(event.at) >= before.getTime());
    const pruned = this.events.length - kept.length;
    this.events = kept;
    return pruned;
  }
}

/** A person.created event of `id`, a person.job_changed one, and so on: enough variety to filter by type. */
export const created = (personId: string): ClassifiedEvent => ({
  type: 'person.created',
  data: { person_id: personId },
});
export const companyUpdated = (companyId: string, fields: string[]): ClassifiedEvent => ({
  type: 'company.updated',
  data: { company_id: companyId, fields },
});
export const joined = (personId: string, companyId: string): ClassifiedEvent => ({
  type: 'person.job_changed',
  data: {
    person_id: personId,
    change: 'joined',
    previous: null,
    current: {
      company_id: companyId,
      company_name: 'Acme Holdings',
      position: 'Engineer',
      seniority: 'Other',
    },
  },
});

/** A person's job change, as the classifier makes one. */
export const jobChange = (n: number): ClassifiedEvent => ({
  type: 'person.job_changed',
  data: {
    person_id: `fp${String(n).padStart(12, '0')}`,
    change: 'new_company',
    previous: {
      company_id: 'f000000000001',
      company_name: 'Old Co',
      position: 'Engineer',
      seniority: 'Other',
    },
    current: {
      company_id: 'f000000000002',
      company_name: 'New Co',
      position: 'Manager',
      seniority: 'Manager',
    },
  },
});
