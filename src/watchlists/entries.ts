// Entries added to a watchlist: each `{"person": {lookup params}, "ref"}` or `{"company": {…}, "ref"}` resolved
// exactly as the lookup of the same parameters resolves (src/lookup/item.ts), and the ones found kept in a
// batch. No HTTP: the routes read bodies and write results.
import { ProblemError } from '../errors.js';
import { allOutcomes } from '../lookup/bulk.js';
import { invalidBody } from '../lookup/bulk-request.js';
import { type ItemOutcome, lookupItem } from '../lookup/item.js';
import { COMPANY_LOOKUP, type LookupOperation, PEOPLE_LOOKUP } from '../lookup/operations.js';
import { MAX_ITEMS, MAX_REF_LENGTH } from '../schemas/bulk.js';
import type { RecordStore } from '../store/records.js';
import type { NewWatchEntry, WatchKind, Watchlist, WatchlistStore } from '../store/watchlists.js';

/** Entries one watchlist holds at most. */
export const MAX_WATCHLIST_ENTRIES = 1_000_000;
/** Entries in one JSON request. */
export const MAX_JSON_ENTRIES = MAX_ITEMS;

/** One entry as asked: what it watches, found by these lookup parameters, and the client's ref. */
export interface EntryRequest {
  kind: WatchKind;
  params: Record<string, unknown>;
  ref: string | undefined;
}

/** How adding an entry ended: watching the record found, or the problem its lookup would answer. */
export type EntryResult =
  | { ref: string | undefined; status: 'watching'; kind: WatchKind; record_id: string }
  | { ref: string | undefined; status: 'not_found' | 'ambiguous' | 'invalid'; problem: ProblemError };

const LOOKUP_OF: Readonly<Record<WatchKind, LookupOperation>> = {
  person: PEOPLE_LOOKUP as LookupOperation,
  company: COMPANY_LOOKUP as LookupOperation,
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The ref of an entry whose shape was refused, when it has a usable one: echoed with the refusal. */
export const usableRef = (value: unknown): string | undefined => {
  const ref = isObject(value) ? value.ref : undefined;
  return typeof ref === 'string' && ref.length <= MAX_REF_LENGTH ? ref : undefined;
};

/**
 * One entry, found at `path`: exactly one of `person` and `company`, an object of that lookup's parameters,
 * and an optional `ref`. Throws the 400 naming what is wrong.
 * @example parseEntry({ person: { work_email: 'jane@acme.com.au' }, ref: 'crm-7' }, '$.entries[0]')
 */
export function parseEntry(value: unknown, path: string): EntryRequest {
  if (!isObject(value)) {
    throw invalidBody(path, 'an entry must be an object with "person" or "company" (and "ref").');
  }
  for (const name in value) {
    if (name !== 'person' && name !== 'company' && name !== 'ref') {
      const shown = JSON.stringify(name.slice(0, 64));
      throw invalidBody(`${path}[${shown}]`, 'unknown member; accepted: person, company, ref.');
    }
  }
  const kinds = (['person', 'company'] as const).filter((kind) => value[kind] !== undefined);
  if (kinds.length !== 1) {
    throw invalidBody(path, 'an entry gives exactly one of "person" and "company".');
  }
  const kind = kinds[0]!;
  const params = value[kind];
  if (!isObject(params)) {
    throw invalidBody(`${path}.${kind}`, `${kind} must be an object of lookup parameter names and values.`);
  }
  const { ref } = value;
  if (ref !== undefined && (typeof ref !== 'string' || ref.length > MAX_REF_LENGTH)) {
    throw invalidBody(`${path}.ref`, `ref must be a string of at most ${MAX_REF_LENGTH} characters.`);
  }
  return { kind, params, ref };
}

/**
 * A JSON body, `{"entries": [...]}` with 1 to 1,000 entries; throws the whole request's 400 (or 413).
 * @example parseEntriesBody({ entries: [{ company: { domain: 'acme.com.au' } }] })
 */
export function parseEntriesBody(body: unknown): EntryRequest[] {
  if (!isObject(body)) throw invalidBody('$', 'the body must be an object with "entries".');
  for (const name in body) {
    if (name !== 'entries') throw invalidBody('$', `unknown member ${JSON.stringify(name.slice(0, 64))}.`);
  }
  const { entries } = body;
  if (!Array.isArray(entries)) throw invalidBody('$.entries', 'entries must be an array.');
  if (entries.length === 0 || entries.length > MAX_JSON_ENTRIES) {
    const problem = entries.length === 0 ? invalidBody : tooMany;
    throw problem(
      '$.entries',
      `give 1 to ${MAX_JSON_ENTRIES.toLocaleString('en')} entries (send more as application/x-ndjson).`,
    );
  }
  return entries.map((entry, i) => parseEntry(entry, `$.entries[${i}]`));
}

const tooMany = (path: string, detail: string) =>
  new ProblemError('payload_too_large', `${path}: ${detail}`, { max_items: MAX_JSON_ENTRIES });

/** The result of an entry's lookup; an ambiguous one does not list the records that matched. */
function resultOf(request: EntryRequest, outcome: ItemOutcome): EntryResult {
  const { kind, ref } = request;
  if (outcome.status === 'matched') return { ref, status: 'watching', kind, record_id: outcome.record.id };
  const problem =
    outcome.status === 'ambiguous'
      ? new ProblemError(outcome.problem.code, outcome.problem.detail)
      : outcome.problem;
  return { ref, status: outcome.status, problem };
}

/** A refusal of the watchlist's limit: adding the entries given would take it past a million. */
export function watchlistFull(size: number, adding: number): ProblemError {
  return new ProblemError(
    'payload_too_large',
    `The watchlist holds ${size.toLocaleString('en')} entries; adding ${adding.toLocaleString('en')} more would ` +
      `pass its limit of ${MAX_WATCHLIST_ENTRIES.toLocaleString('en')}.`,
    { max_items: MAX_WATCHLIST_ENTRIES, size },
  );
}

/**
 * Resolves a batch of entries (a refused one given as its result already) and adds those found to the
 * watchlist, in one transaction. Throws `watchlistFull` when they would take it past its limit, adding none.
 * @returns each entry's result, in order, and the watchlist's size after
 */
export async function addEntries(
  store: RecordStore & WatchlistStore,
  watchlist: Pick<Watchlist, 'id' | 'size'>,
  batch: ReadonlyArray<EntryRequest | EntryResult>,
): Promise<{ results: EntryResult[]; size: number }> {
  const requests = batch.filter((item): item is EntryRequest => 'params' in item);
  const outcomes = await allOutcomes(
    requests.map((request) => lookupItem(store, LOOKUP_OF[request.kind], request.params)),
  );
  let next = 0;
  const results = batch.map((item) => ('params' in item ? resultOf(item, outcomes[next++]!) : item));
  const found: NewWatchEntry[] = [];
  for (const result of results) {
    if (result.status === 'watching') {
      found.push({ kind: result.kind, record_id: result.record_id, ref: result.ref ?? null });
    }
  }
  if (found.length === 0) return { results, size: watchlist.size };
  if (watchlist.size + found.length > MAX_WATCHLIST_ENTRIES)
    throw watchlistFull(watchlist.size, found.length);
  return { results, size: await store.addWatchEntries(watchlist.id, found) };
}

/** An entry's public id: `we_` and its seq. */
export const entryId = (seq: number) => `we_${seq}`;

/** The seq of an entry id, or undefined when the text is not one. */
export function entrySeq(id: string): number | undefined {
  const match = /^we_([1-9][0-9]{0,14})$/.exec(id);
  return match ? Number(match[1]) : undefined;
}
