// The identifier index on PostgreSQL: each record lists its identifiers, and the index rows follow the list.
import type pg from 'pg';
import type { RecordToStore } from '../records.js';
import { type EntityTables, IDENTIFIER_KIND_CODES } from '../sql/tables.js';
import { type BinaryCopyEncoder, copyEncoded } from './binary-copy.js';
import { forgetEmployeesCountry } from './search-writes.js';

/** One row of the identifier index. */
export interface IdentifierRow {
  kind: number;
  value: string;
  rid: number;
}

/**
 * A record's identifiers as listed on it: '<kind code>:<value>', distinct and sorted. Kind codes hold
 * no colon, so the first one ends the code.
 */
export function identifierKeys(record: RecordToStore): string[] {
  const keys = record.identifiers.map(({ kind, value }) => `${IDENTIFIER_KIND_CODES[kind]}:${value}`).sort();
  let distinct = 0;
  for (const key of keys) if (distinct === 0 || key !== keys[distinct - 1]) keys[distinct++] = key;
  keys.length = distinct;
  return keys;
}

export function identifierRow(key: string, rid: number): IdentifierRow {
  const colon = key.indexOf(':');
  return { kind: Number(key.slice(0, colon)), value: key.slice(colon + 1), rid };
}

/** Appends one index row per key to an identifier COPY, with no intermediate objects. */
export function encodeIdentifiers(encoder: BinaryCopyEncoder, keys: readonly string[], rid: number): void {
  for (const key of keys) {
    const colon = key.indexOf(':');
    const kind = colon === 1 ? key.charCodeAt(0) - 48 : Number(key.slice(0, colon));
    encoder
      .row(3)
      .int2(kind)
      .text(key.slice(colon + 1))
      .int8(rid);
  }
}

/** The keys to add and to remove to go from one identifier list of a record to another. */
export function identifierChanges(before: readonly string[], after: readonly string[]) {
  const old = new Set(before);
  const now = new Set(after);
  return { added: after.filter((key) => !old.has(key)), removed: before.filter((key) => !now.has(key)) };
}

/**
 * For the rest of the transaction, joins a batch to a table by probing the table's indexes. A batch is
 * small beside the table, but the planner cannot know the size of staged or unnested rows, and would
 * otherwise sort or hash the whole identifier index for a few thousand rows; compiling (JIT) these short
 * statements would also cost more than it saves.
 */
export async function preferIndexProbes(client: pg.PoolClient): Promise<void> {
  await client.query(
    'SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL jit = off',
  );
}

/** Sends the index rows encoded with encodeIdentifiers. */
export async function addIdentifiers(
  client: pg.PoolClient,
  t: EntityTables,
  rows: BinaryCopyEncoder,
): Promise<void> {
  if (rows.rows > 0) await copyEncoded(client, `${t.identifiers} (kind, value, rid)`, rows);
}

export async function removeIdentifiers(
  client: pg.PoolClient,
  t: EntityTables,
  rows: IdentifierRow[],
): Promise<void> {
  if (rows.length === 0) return;
  await client.query({
    text: `DELETE FROM ${t.identifiers} i USING unnest($1::smallint[], $2::text[], $3::bigint[]) AS d(kind, value, rid)
           WHERE i.value = d.value AND i.kind = d.kind AND i.rid = d.rid`,
    values: [rows.map((r) => r.kind), rows.map((r) => r.value), rows.map((r) => String(r.rid))],
  });
}

/**
 * Deletes records and their index rows inside the caller's transaction; returns the ids that existed.
 * @example await inTransaction(pool, (client) => deleteRecords(client, ENTITY_TABLES.people, ids))
 */
export async function deleteRecords(
  client: pg.PoolClient,
  t: EntityTables,
  ids: string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  await preferIndexProbes(client);
  const { rows } = await client.query<{ rid: string; id: string; idents: string[] }>({
    text: `DELETE FROM ${t.records} WHERE id = ANY($1::text[]) RETURNING rid, id, idents`,
    values: [ids],
  });
  await removeIdentifiers(
    client,
    t,
    rows.flatMap((row) => row.idents.map((key) => identifierRow(key, Number(row.rid)))),
  );
  // Search rows went with their records (ON DELETE CASCADE); a company's people lose its country.
  if (t.records === 'companies')
    await forgetEmployeesCountry(
      client,
      rows.map((row) => row.id),
    );
  return rows.map((row) => row.id);
}
