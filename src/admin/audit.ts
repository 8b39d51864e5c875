// Audit search for the admin API: who looked a record up (the record found by any identifier, as a lookup
// finds it), or what a key looked up; oldest first, a page at a time, as JSON or as CSV.
import { Buffer } from 'node:buffer';
import { stringify } from 'csv-stringify/sync';
import { ProblemError } from '../errors.js';
import { COMPANY_PARAMS, type LookupKey, PERSON_PARAMS } from '../identifiers/params.js';
import { neutraliseRow } from '../ingest/formula-guard.js';
import { recordsFoundBy, suppressionKey } from '../privacy/suppress.js';
import type { AccountingStore, AuditEntry } from '../store/accounting.js';
import type { KeyStore } from '../store/keys.js';
import type { RecordStore } from '../store/records.js';
import type { SuppressionStore } from '../store/suppression.js';
import type { Entity } from '../vocabulary/entities.js';

export const AUDIT_PAGE = 1000;

type AuditStore = RecordStore & SuppressionStore & KeyStore & Pick<AccountingStore, 'audit'>;

/** Every lookup key a pasted identifier may be, for an entity: each parameter it normalises as. */
function candidateKeys(entity: Entity, raw: string): LookupKey[] {
  const keys: LookupKey[] = [];
  for (const param of entity === 'people' ? PERSON_PARAMS : COMPANY_PARAMS) {
    try {
      keys.push(suppressionKey(entity, param, raw));
    } catch {
      // Not an identifier of this kind: the others are tried.
    }
  }
  return keys;
}

/**
 * The record ids a pasted identifier names: each record a lookup by it finds, whichever parameter it is
 * (a LinkedIn URL, an address or its SHA-256, a domain, an ABN, an id), and the id itself when it is one
 * (a record deleted since is still asked about).
 */
export async function recordsNamedBy(store: AuditStore, entity: Entity, raw: string): Promise<string[]> {
  const ids = new Set<string>();
  for (const key of candidateKeys(entity, raw)) {
    if (key.kind === 'id') ids.add(key.value);
    else for (const id of await recordsFoundBy(store, entity, key)) ids.add(id);
  }
  return [...ids].sort();
}

/** Where a page starts: after the `skip`-th entry at time `at` (entries of one moment keep their order). */
interface Cursor {
  at: string;
  skip: number;
}

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

function decodeCursor(text: string): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(text, 'base64url').toString()) as Cursor;
    if (
      typeof cursor.at === 'string' &&
      !Number.isNaN(Date.parse(cursor.at)) &&
      Number.isSafeInteger(cursor.skip)
    )
      return cursor;
  } catch {
    // Answered below.
  }
  throw new ProblemError('invalid_parameter', 'after: not a cursor this service gave (use next_after)', {
    parameter: 'after',
  });
}

export interface AuditQuery {
  person?: string;
  company?: string;
  key?: string;
  from?: string;
  to?: string;
  after?: string;
  limit?: number;
}

/** An entry as the admin reads it: the key's name beside its id. */
export interface AuditLine extends AuditEntry {
  key_name: string | null;
}

export interface AuditPage {
  record_ids: string[] | null;
  entries: AuditLine[];
  /** The `after` of the next page; null on the last. */
  next_after: string | null;
}

function moment(param: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new ProblemError('invalid_parameter', `${param}: expected an ISO date or time such as 2026-11-01`, {
      parameter: param,
    });
  }
  return new Date(value).toISOString();
}

/** Entries of several record ids merged in time order: an entry that disclosed two of them appears once. */
function merged(lists: AuditEntry[][]): AuditEntry[] {
  if (lists.length === 1) return lists[0]!;
  // An entry is told by all it says; one said n times in one list is n entries, so the most times any list
  // holds it is how many there are.
  const counts = new Map<string, { entry: AuditEntry; times: number }>();
  for (const list of lists) {
    const seen = new Map<string, number>();
    for (const entry of list) {
      const id = JSON.stringify(entry);
      const times = (seen.get(id) ?? 0) + 1;
      seen.set(id, times);
      const known = counts.get(id);
      if (!known) counts.set(id, { entry, times });
      else known.times = Math.max(known.times, times);
    }
  }
  const all = [...counts.values()].flatMap(({ entry, times }) => Array<AuditEntry>(times).fill(entry));
  return all.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** One page of the audit log by record (a person or company by any identifier) and/or key. */
export async function auditPage(store: AuditStore, query: AuditQuery): Promise<AuditPage> {
  const { person, company, key } = query;
  if (person !== undefined && company !== undefined) {
    throw new ProblemError('invalid_parameter', 'Give person or company, not both.', {
      parameter: 'company',
    });
  }
  if (person === undefined && company === undefined && key === undefined) {
    throw new ProblemError('missing_filter', 'Give person, company or key.', {
      accepted: ['person', 'company', 'key'],
    });
  }
  if (key !== undefined && !(await store.getKey(key))) {
    throw new ProblemError('not_found', `There is no key ${key}.`);
  }
  const to = moment('to', query.to);
  const cursor = query.after === undefined ? undefined : decodeCursor(query.after);
  const from = moment('from', query.from);
  const since = cursor?.at ?? from;
  const limit = query.limit ?? AUDIT_PAGE;
  const skip = cursor?.skip ?? 0;
  const wanted = skip + limit + 1;
  const raw = person ?? company;
  const recordIds =
    raw === undefined ? null : await recordsNamedBy(store, person ? 'people' : 'companies', raw);
  const lists =
    recordIds === null
      ? [await store.audit({ keyId: key, since, limit: wanted })]
      : await Promise.all(
          recordIds.map((recordId) => store.audit({ recordId, keyId: key, since, limit: wanted })),
        );
  let entries = merged(lists).slice(skip);
  if (to !== undefined) entries = entries.filter((entry) => entry.at < to);
  const more = entries.length > limit;
  entries = entries.slice(0, limit);
  const last = entries.at(-1);
  const next =
    more && last
      ? {
          at: last.at,
          skip: entries.filter((e) => e.at === last.at).length + (cursor?.at === last.at ? skip : 0),
        }
      : null;
  const names = new Map((await store.listKeys()).map((k) => [k.id, k.name]));
  return {
    record_ids: recordIds,
    entries: entries.map((entry) => ({ ...entry, key_name: names.get(entry.key_id) ?? null })),
    next_after: next && encodeCursor(next),
  };
}

const CSV_HEADER = ['at', 'key_id', 'key_name', 'operation', 'status', 'params', 'matched'];

/** Audit lines as CSV, each cell through the formula guard (a key's name is whoever typed it). */
export function auditCsv(lines: readonly AuditLine[], header = true): string {
  const rows = lines.map((e) =>
    neutraliseRow([
      e.at,
      e.key_id,
      e.key_name ?? '',
      e.operation,
      String(e.status),
      e.params.join(' '),
      e.matched.join(' '),
    ]),
  );
  return stringify(header ? [CSV_HEADER, ...rows] : rows, { record_delimiter: '\r\n' });
}
