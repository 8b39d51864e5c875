// Which change events a watchlist watches: those of its people, and those of its companies (their own events,
// everyone joining or leaving them, and title changes at them). Used by the feed and by webhook delivery.
import type { LoggedEvent } from './events.js';

/** What a watchlist holds, as far as a page of events asks: its person ids and its company ids. */
export interface Watched {
  persons: { has(id: string): boolean };
  companies: { has(id: string): boolean };
}

/** The person and company ids a page of events names: what to ask a watchlist about, each once. */
export interface NamedIds {
  personIds: string[];
  companyIds: string[];
}

/** Every company id an event names: its own, the one a title changed at, those a person left and joined. */
function companiesOf(event: LoggedEvent): Array<string | null> {
  switch (event.type) {
    case 'company.created':
    case 'company.updated':
    case 'company.removed':
      return [event.data.company_id];
    case 'person.job_changed':
      return [event.data.previous?.company_id ?? null, event.data.current?.company_id ?? null];
    case 'person.title_changed':
      return [event.data.company_id];
    default:
      return [];
  }
}

/** The person an event is about, when it is about one. */
const personOf = (event: LoggedEvent): string | undefined =>
  'person_id' in event.data ? event.data.person_id : undefined;

/**
 * True when the watchlist watches the event: its person is watched, or a company it names is (a company's
 * own events, a job change whose previous or current company is watched, a title change at it).
 * @example eventWatched(jobChange, { persons: new Set(), companies: new Set([previousCompanyId]) }) // true
 */
export function eventWatched(event: LoggedEvent, watched: Watched): boolean {
  const person = personOf(event);
  if (person !== undefined && watched.persons.has(person)) return true;
  return companiesOf(event).some((id) => id !== null && watched.companies.has(id));
}

/** The ids a page of events names, each once: one store query answers for all of them (watchedIn). */
export function namedIds(events: readonly LoggedEvent[]): NamedIds {
  const persons = new Set<string>();
  const companies = new Set<string>();
  for (const event of events) {
    const person = personOf(event);
    if (person !== undefined) persons.add(person);
    for (const id of companiesOf(event)) if (id !== null) companies.add(id);
  }
  return { personIds: [...persons], companyIds: [...companies] };
}

/** What answers which of some ids a watchlist holds (WatchlistStore.watchedIn). */
export interface WatchedLookup {
  watchedIn(
    watchlistId: string,
    personIds: readonly string[],
    companyIds: readonly string[],
  ): Promise<Watched>;
}

/**
 * The events of a page a watchlist watches, in their order, with one query for the whole page.
 * @example const mine = await watchedEvents(store, 'wl_4hT9xQ2mPz8a', page)
 */
export async function watchedEvents<E extends LoggedEvent>(
  lookup: WatchedLookup,
  watchlistId: string,
  events: readonly E[],
): Promise<E[]> {
  if (events.length === 0) return [];
  const { personIds, companyIds } = namedIds(events);
  const watched = await lookup.watchedIn(watchlistId, personIds, companyIds);
  return events.filter((event) => eventWatched(event, watched));
}

/** Events a watchlist's page of the feed reads from the log at most, watched or not, before it answers. */
export const MAX_SCANNED = 10_000;

/** A watchlist's page of the log: its watched events, and how far the log was read. */
export interface WatchedPage<E extends LoggedEvent> {
  events: E[];
  /** The seq of the last event read, watched or not (`after` when none was): the next page's `after`. */
  last: number;
  /** True when the log may hold more events after `last`. */
  more: boolean;
}

/**
 * Reads the log after `after`, a page at a time, until `limit` watched events are found, the log ends, or
 * `maxScanned` events were read: a watchlist that watches little does not make one request read the whole log.
 * The page ends at the last watched event it holds when it is full, so that nothing after it is skipped.
 * @example const page = await readWatched((after, n) => store.readChanges(after, n), store, 'wl_…', 0, 100)
 */
export async function readWatched<E extends LoggedEvent>(
  read: (after: number, limit: number) => Promise<E[]>,
  lookup: WatchedLookup,
  watchlistId: string,
  after: number,
  limit: number,
  maxScanned = MAX_SCANNED,
): Promise<WatchedPage<E>> {
  const events: E[] = [];
  let last = after;
  for (let scanned = 0; scanned < maxScanned; ) {
    const want = Math.min(1000, maxScanned - scanned);
    const page = await read(last, want);
    const watched = await watchedEvents(lookup, watchlistId, page);
    for (const event of watched) {
      if (events.length === limit) return { events, last: events.at(-1)!.seq, more: true };
      events.push(event);
    }
    scanned += page.length;
    if (page.length > 0) last = page.at(-1)!.seq;
    if (page.length < want) return { events, last, more: false };
  }
  return { events, last, more: true };
}
