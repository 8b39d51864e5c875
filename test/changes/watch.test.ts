// Which events a watchlist watches (src/changes/watch.ts): its people's, and its companies' own events, job
// changes into or out of them and title changes at them; and a page answered with one question to the store.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Job, LoggedEvent } from '../../src/changes/events.js';
import { eventWatched, namedIds, readWatched, type Watched, watchedEvents } from '../../src/changes/watch.js';

const personId = fc.constantFrom('fp1', 'fp2', 'fp3');
const companyId = fc.constantFrom('f1', 'f2', 'f3');
const maybeCompany = fc.option(companyId, { nil: null });
const job: fc.Arbitrary<Job> = fc.record({
  company_id: maybeCompany,
  company_name: fc.constant('Acme'),
  position: fc.constant('Engineer'),
  seniority: fc.constant('Manager'),
});
const title = fc.record({ position: fc.constant('Engineer'), seniority: fc.constant('Manager') });
const reason = fc.constantFrom('snapshot' as const, 'deleted' as const, 'suppressed' as const);

/** Any event of any type, about the few ids above. */
const event: fc.Arbitrary<LoggedEvent> = fc
  .oneof(
    personId.map((id) => ({ type: 'person.created' as const, data: { person_id: id } })),
    personId.map((id) => ({ type: 'person.updated' as const, data: { person_id: id, fields: ['name'] } })),
    fc.tuple(personId, reason).map(([id, why]) => ({
      type: 'person.removed' as const,
      data: { person_id: id, reason: why },
    })),
    fc
      .tuple(personId, fc.option(job, { nil: null }), fc.option(job, { nil: null }))
      .map(([id, previous, current]) => ({
        type: 'person.job_changed' as const,
        data: { person_id: id, change: 'new_company' as const, previous, current },
      })),
    fc.tuple(personId, maybeCompany, title, title).map(([id, company, previous, current]) => ({
      type: 'person.title_changed' as const,
      data: { person_id: id, company_id: company, previous, current, promotion: false },
    })),
    companyId.map((id) => ({ type: 'company.created' as const, data: { company_id: id } })),
    companyId.map((id) => ({ type: 'company.updated' as const, data: { company_id: id, fields: ['name'] } })),
    fc.tuple(companyId, reason).map(([id, why]) => ({
      type: 'company.removed' as const,
      data: { company_id: id, reason: why },
    })),
  )
  .chain((classified) =>
    fc.nat(1000).map((seq) => ({ ...classified, seq, at: '2026-11-25T10:00:00.000Z' }) as LoggedEvent),
  );

const watchedSets = fc.record({
  persons: fc.uniqueArray(personId).map((ids) => new Set<string>(ids)),
  companies: fc.uniqueArray(companyId).map((ids) => new Set<string>(ids)),
});

/** The rule of contract §8, said once more the plain way: every id an event names, by where it names it. */
function watchedByRule(e: LoggedEvent, watched: { persons: Set<string>; companies: Set<string> }): boolean {
  const data = e.data as Record<string, unknown>;
  if (typeof data.person_id === 'string' && watched.persons.has(data.person_id)) return true;
  const companies: unknown[] = [data.company_id];
  if (e.type === 'person.job_changed')
    companies.push(e.data.previous?.company_id, e.data.current?.company_id);
  return companies.some((id) => typeof id === 'string' && watched.companies.has(id));
}

const nothing: Watched = { persons: new Set(), companies: new Set() };

describe('eventWatched', () => {
  it('watches exactly the events of watched people and of watched companies, for any event', () => {
    fc.assert(
      fc.property(event, watchedSets, (e, watched) => {
        expect(eventWatched(e, watched)).toBe(watchedByRule(e, watched));
      }),
    );
  });

  it('watches nothing with an empty watchlist, and everything a person is in when they are watched', () => {
    fc.assert(
      fc.property(event, (e) => {
        expect(eventWatched(e, nothing)).toBe(false);
        if ('person_id' in e.data) {
          expect(eventWatched(e, { persons: new Set([e.data.person_id]), companies: new Set() })).toBe(true);
        }
      }),
    );
  });

  it("watches someone joining a watched company and someone leaving it, not a colleague's title elsewhere", () => {
    const move = (previous: string | null, current: string | null): LoggedEvent => ({
      seq: 1,
      at: '2026-11-25T10:00:00.000Z',
      type: 'person.job_changed',
      data: {
        person_id: 'fp9',
        change: previous === null ? 'joined' : current === null ? 'departure' : 'new_company',
        previous:
          previous === null
            ? null
            : { company_id: previous, company_name: 'A', position: null, seniority: null },
        current:
          current === null
            ? null
            : { company_id: current, company_name: 'B', position: null, seniority: null },
      },
    });
    const acme = { persons: new Set<string>(), companies: new Set(['f1']) };
    expect(eventWatched(move(null, 'f1'), acme)).toBe(true);
    expect(eventWatched(move('f1', null), acme)).toBe(true);
    expect(eventWatched(move('f1', 'f2'), acme)).toBe(true);
    expect(eventWatched(move('f2', 'f1'), acme)).toBe(true);
    expect(eventWatched(move('f2', 'f3'), acme)).toBe(false);
  });
});

describe('watchedEvents', () => {
  it('keeps the watched events of a page in order, asking the store once about each id the page names', () => {
    fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 30 }), watchedSets, async (page, watched) => {
        const asked: Array<[string[], string[]]> = [];
        const lookup = {
          watchedIn: async (_id: string, persons: readonly string[], companies: readonly string[]) => {
            asked.push([[...persons], [...companies]]);
            return {
              persons: new Set(persons.filter((id) => watched.persons.has(id))),
              companies: new Set(companies.filter((id) => watched.companies.has(id))),
            };
          },
        };
        const kept = await watchedEvents(lookup, 'wl_1', page);
        expect(kept).toEqual(page.filter((e) => watchedByRule(e, watched)));
        expect(asked).toHaveLength(page.length === 0 ? 0 : 1);
        if (page.length > 0) {
          const { personIds, companyIds } = namedIds(page);
          expect(asked[0]).toEqual([personIds, companyIds]);
          expect(new Set(personIds).size).toBe(personIds.length);
        }
      }),
    );
  });
});

describe('readWatched', () => {
  /** The store's answer for a watchlist of these ids. */
  const lookupOf = (watched: { persons: Set<string>; companies: Set<string> }) => ({
    watchedIn: async (_id: string, persons: readonly string[], companies: readonly string[]) => ({
      persons: new Set(persons.filter((id) => watched.persons.has(id))),
      companies: new Set(companies.filter((id) => watched.companies.has(id))),
    }),
  });

  it('pages through exactly the watched events of the log, in order, each page at most `limit`', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { maxLength: 60 }),
        watchedSets,
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 25 }),
        async (events, watched, limit, maxScanned) => {
          const log = events.map((e, i) => ({ ...e, seq: i + 1 }) as LoggedEvent);
          const read = async (after: number, n: number) => log.filter((e) => e.seq > after).slice(0, n);
          const seen: LoggedEvent[] = [];
          let after = 0;
          for (let pages = 0; ; pages++) {
            expect(pages).toBeLessThan(200);
            const page = await readWatched(read, lookupOf(watched), 'wl_1', after, limit, maxScanned);
            expect(page.events.length).toBeLessThanOrEqual(limit);
            expect(page.last).toBeGreaterThanOrEqual(after);
            seen.push(...page.events);
            after = page.last;
            if (!page.more) break;
          }
          expect(seen).toEqual(log.filter((e) => watchedByRule(e, watched)));
          expect(after).toBe(log.at(-1)?.seq ?? 0);
        },
      ),
    );
  });
});
