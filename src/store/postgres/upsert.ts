// Batch upsert: new records COPYed straight into place, others staged and updated, identifiers by difference.
import { hash } from 'node:crypto';
import type pg from 'pg';
import { classifyChange } from '../../changes/classify.js';
import type { ClassifiedEvent } from '../../changes/events.js';
import type { Entity } from '../../vocabulary/entities.js';
import { countChange, noneCounted, type RecordToStore, type UpsertCounts } from '../records.js';
import { ENTITY_TABLES, type EntityTables, IDENTIFIER_KIND_CODES } from '../sql/tables.js';
import { BinaryCopyEncoder, copyBinary } from './binary-copy.js';
import { appendChanges } from './changes.js';
import {
  addIdentifiers,
  encodeIdentifiers,
  type IdentifierRow,
  identifierChanges,
  identifierKeys,
  identifierRow,
  preferIndexProbes,
  removeIdentifiers,
} from './identifiers.js';
import { writeSearchRows } from './search-writes.js';

/** Refuses a batch that would store something other than what was asked, before any of it is written. */
export function checkBatch(records: RecordToStore[]): void {
  records.forEach((record, i) => {
    for (const field of ['id', 'etag', 'body'] as const) {
      if (typeof record[field] !== 'string')
        throw new TypeError(`record ${i} of the batch: ${field} is not a string`);
    }
    for (const { kind, value } of record.identifiers) {
      if (!Object.hasOwn(IDENTIFIER_KIND_CODES, kind)) {
        throw new TypeError(`record ${record.id}: unknown identifier kind ${kind}`);
      }
      if (typeof value !== 'string')
        throw new TypeError(`record ${record.id}: ${kind} value is not a string`);
    }
  });
}

/** The records of a batch with a repeated id reduced to its last occurrence, as if upserted in turn. */
export function lastOccurrenceById(records: RecordToStore[]): RecordToStore[] {
  const byId = new Map<string, RecordToStore>();
  for (const record of records) {
    byId.delete(record.id);
    byId.set(record.id, record);
  }
  return [...byId.values()];
}

/** A record of the batch with its rid and identifier list. */
interface Placed {
  record: RecordToStore;
  rid: number;
  keys: string[];
}

async function allocateRids(client: pg.PoolClient, t: EntityTables, count: number): Promise<number[]> {
  // One row holding an array: thousands of one-column rows cost more to parse than the numbers themselves.
  const { rows } = await client.query<{ rids: string[] }>({
    text: `SELECT array_agg(nextval('${t.records}_rid_seq')) AS rids FROM generate_series(1, $1)`,
    values: [count],
  });
  return (rows[0]?.rids ?? []).map(Number);
}

/**
 * COPYs new records into place, encoding their index rows into `added`. Identifier lists are worked out
 * as the rows are encoded, so that work overlaps the server's parsing of the previous chunk.
 */
async function insertRecords(
  client: pg.PoolClient,
  t: EntityTables,
  fresh: RecordToStore[],
  rids: number[],
  added: BinaryCopyEncoder,
): Promise<void> {
  const rows = fresh.map((record, i): [RecordToStore, number] => [record, rids[i]!]);
  await copyBinary(client, `${t.records} (rid, id, etag, body, idents)`, rows, (e, [record, rid]) => {
    const keys = identifierKeys(record);
    e.row(5).int8(rid).text(record.id).text(record.etag).text(record.body).textArray(keys);
    encodeIdentifiers(added, keys, rid);
  });
}

/** Rewrites records on file through a staging table that keeps the record table's column compression. */
async function updateRecords(client: pg.PoolClient, t: EntityTables, changed: Placed[]): Promise<void> {
  const stage = `enrich_stage_${t.records}`;
  // Kept for the session and emptied at each commit.
  await client.query(
    `CREATE TEMP TABLE IF NOT EXISTS ${stage} (LIKE ${t.records} INCLUDING COMPRESSION) ON COMMIT DELETE ROWS`,
  );
  await copyBinary(client, `${stage} (rid, id, etag, body, idents)`, changed, (e, { record, rid, keys }) =>
    e.row(5).int8(rid).text(record.id).text(record.etag).text(record.body).textArray(keys),
  );
  await client.query(
    `UPDATE ${t.records} r SET etag = s.etag, body = s.body, idents = s.idents FROM ${stage} s WHERE r.rid = s.rid`,
  );
}

interface OnFile {
  rid: string;
  id: string;
  etag: string;
  idents: string[];
}

/** Locks the batch's records that are on file, in id order so concurrent imports queue, not deadlock. */
async function lockRecordsOnFile(client: pg.PoolClient, t: EntityTables, records: RecordToStore[]) {
  const { rows } = await client.query<OnFile>({
    text: `SELECT rid, id, etag, idents FROM ${t.records} WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
    values: [records.map((r) => r.id)],
  });
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Of records whose etag and identifiers are unchanged, those whose body is unchanged too, compared by
 * digest so that no body crosses the wire. Asked only on a re-import: new records have no candidates.
 */
async function unchangedBodies(
  client: pg.PoolClient,
  t: EntityTables,
  candidates: Placed[],
): Promise<Set<Placed>> {
  if (candidates.length === 0) return new Set();
  const { rows } = await client.query<{ rid: string; digest: string }>({
    text: `SELECT rid, encode(sha256(textsend(body)), 'hex') AS digest FROM ${t.records} WHERE rid = ANY($1::bigint[])`,
    values: [candidates.map((c) => c.rid)],
  });
  const stored = new Map(rows.map((row) => [Number(row.rid), row.digest]));
  return new Set(candidates.filter((c) => stored.get(c.rid) === hash('sha256', c.record.body)));
}

const sameKeys = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((key, i) => key === b[i]);

/** The stored bodies of these records, before the batch rewrites them: what the change log compares. */
async function storedBodies(
  client: pg.PoolClient,
  t: EntityTables,
  rids: number[],
): Promise<Map<number, string>> {
  if (rids.length === 0) return new Map();
  const { rows } = await client.query<{ rid: string; body: string }>({
    text: `SELECT rid, body FROM ${t.records} WHERE rid = ANY($1::bigint[])`,
    values: [rids],
  });
  return new Map(rows.map((row) => [Number(row.rid), row.body]));
}

/** Ids that occur more than once in a batch. */
function repeatedIds(batch: RecordToStore[]): Set<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const { id } of batch) (seen.has(id) ? repeated : seen).add(id);
  return repeated;
}

/**
 * Classifies each record of the batch, in turn, against what was stored before it (or the occurrence of
 * its id before it in the batch): the batch's counts and the events the change log appends.
 */
function classifyBatch(
  entity: Entity,
  batch: RecordToStore[],
  before: (record: RecordToStore) => string | null,
): { counts: UpsertCounts; events: ClassifiedEvent[] } {
  const latest = new Map<string, string>();
  const counts = noneCounted();
  const events: ClassifiedEvent[] = [];
  for (const record of batch) {
    const previous = latest.get(record.id) ?? before(record);
    const change = classifyChange({ entity, id: record.id, before: previous, after: record.body });
    countChange(counts, change.change);
    events.push(...change.events);
    latest.set(record.id, record.body);
  }
  return { counts, events };
}

/**
 * Writes a batch (`records` is it deduplicated); see upsertBatch. Returns the records written (new, then
 * changed), the batch's counts and its events.
 */
async function writeBatch(
  client: pg.PoolClient,
  entity: Entity,
  batch: RecordToStore[],
  records: RecordToStore[],
) {
  const t = ENTITY_TABLES[entity];
  const onFile = await lockRecordsOnFile(client, t, records);
  const fresh = records.filter((r) => !onFile.has(r.id));
  const rids = fresh.length > 0 ? await allocateRids(client, t, fresh.length) : [];
  const added = new BinaryCopyEncoder();
  const removed: IdentifierRow[] = [];
  const changed: Placed[] = [];
  const candidates: Placed[] = [];
  for (const record of records) {
    const row = onFile.get(record.id);
    if (!row) continue;
    const placed = { record, rid: Number(row.rid), keys: identifierKeys(record) };
    if (row.etag === record.etag && sameKeys(row.idents, placed.keys)) {
      candidates.push(placed);
      continue;
    }
    changed.push(placed);
    const changes = identifierChanges(row.idents, placed.keys);
    encodeIdentifiers(added, changes.added, placed.rid);
    for (const key of changes.removed) removed.push(identifierRow(key, placed.rid));
  }
  const unchanged = await unchangedBodies(client, t, candidates);
  changed.push(...candidates.filter((c) => !unchanged.has(c)));
  // Only the bodies the change log must compare cross the wire: those rewritten, and those of an id the
  // batch repeats (each occurrence is compared with the one before it).
  const repeated = repeatedIds(batch);
  const compared = [
    ...changed.map((c) => c.rid),
    ...[...repeated].flatMap((id) => (onFile.has(id) ? [Number(onFile.get(id)!.rid)] : [])),
  ];
  const stored = await storedBodies(client, t, compared);
  const { counts, events } = classifyBatch(entity, batch, (record) => {
    const row = onFile.get(record.id);
    if (!row) return null;
    // Not among the bodies read: on file with these very bytes (unchangedBodies compared their digests).
    return stored.get(Number(row.rid)) ?? record.body;
  });
  if (fresh.length > 0) await insertRecords(client, t, fresh, rids, added);
  if (changed.length > 0) await updateRecords(client, t, changed);
  await removeIdentifiers(client, t, removed);
  await addIdentifiers(client, t, added);
  const written = [
    ...fresh.map((record, i) => ({ record, rid: rids[i]! })),
    ...changed.map(({ record, rid }) => ({ record, rid })),
  ];
  return { counts, events, written };
}

const UNIQUE_VIOLATION = '23505';
const ATTEMPTS = 3;

/**
 * Upserts a batch inside the caller's transaction. Records not on file are COPYed straight into the
 * table with rids drawn from its sequence; records on file that differ in etag, body or identifiers
 * are staged and rewritten; index rows change only where a record's identifier list did, and search rows
 * only for records written. So re-importing unchanged data writes nothing. A concurrent import may insert
 * one of the new ids first: the batch is then retried from a savepoint, and finds that record on file.
 * Each record is classified against what it replaces (an id repeated in the batch against the occurrence
 * before it, as if the batch were upserted in turn): the counts, and the events appended to the change log
 * as the transaction's last statement.
 */
export async function upsertBatch(
  client: pg.PoolClient,
  entity: Entity,
  batch: RecordToStore[],
): Promise<UpsertCounts> {
  checkBatch(batch);
  const records = lastOccurrenceById(batch);
  if (records.length === 0) return noneCounted();
  await preferIndexProbes(client);
  for (let attempt = 1; ; attempt++) {
    await client.query('SAVEPOINT enrich_upsert');
    try {
      const { counts, events, written } = await writeBatch(client, entity, batch, records);
      await writeSearchRows(
        client,
        entity,
        written.map(({ record, rid }) => ({ rid, id: record.id, facts: record.facts, body: record.body })),
      );
      await appendChanges(client, events);
      await client.query('RELEASE SAVEPOINT enrich_upsert');
      return counts;
    } catch (err) {
      const raced = (err as { code?: string }).code === UNIQUE_VIOLATION && attempt < ATTEMPTS;
      if (!raced) throw err;
      await client.query('ROLLBACK TO SAVEPOINT enrich_upsert');
    }
  }
}
