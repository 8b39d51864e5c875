// Keeps PostgreSQL's search tables in step with the records: rows written with each upsert batch (and by
// the migration that adds them); a record's delete cascades to its row.
import type pg from 'pg';
import type { Entity } from '../../vocabulary/entities.js';
import { type CompanyFacts, factsOf, type PersonFacts, type SearchFacts } from '../search-facts.js';
import { COMPANY_COLUMNS, employeesCountrySql, PERSON_COLUMNS } from '../sql/search-columns.js';

/** A record written by an upsert: its rid, id, and facts (worked out, or from its body). */
export interface SearchRow {
  rid: number;
  id: string;
  facts: SearchFacts | undefined;
  body: string;
}

/** Upserts rows by rid from one array per column (unnest), the facts' columns in `columns` order. */
function upsertStatement(columns: ReadonlyArray<readonly [string, string]>, extra: string[] = []) {
  const names = columns.map(([name]) => name);
  const arrays = columns.map(([, type], i) => `$${i + 3}::${type}[]`).join(', ');
  const set = [...names, ...extra].map((name) => `${name} = excluded.${name}`).join(', ');
  return { names, arrays, set };
}

/**
 * Adds positions not yet in the dictionary of positions (migration 9). No unique constraint: two imports
 * adding the same new position at once each add a row, which no search minds, rather than wait on each
 * other.
 */
async function addPositions(client: pg.ClientBase, positions: string[]): Promise<void> {
  const distinct = [...new Set(positions)].filter((position) => position !== '');
  if (distinct.length === 0) return;
  await client.query({
    text: `INSERT INTO people_positions (position)
           SELECT p FROM unnest($1::text[]) AS p
           WHERE NOT EXISTS (SELECT 1 FROM people_positions d WHERE d.position = p)`,
    values: [distinct],
  });
}

async function writePeople(client: pg.ClientBase, rows: SearchRow[], positions: boolean): Promise<void> {
  const { names, arrays, set } = upsertStatement(PERSON_COLUMNS, ['country']);
  const facts = rows.map((row) => (row.facts ?? factsOf('people', row.body)) as PersonFacts);
  await client.query({
    text: `INSERT INTO people_search (rid, id, ${names.join(', ')}, country)
           SELECT u.*, coalesce(u.location_country,
             (SELECT ${employeesCountrySql('c')} FROM companies_search c WHERE c.id = u.company_id))
           FROM unnest($1::bigint[], $2::text[], ${arrays}) AS u (rid, id, ${names.join(', ')})
           ON CONFLICT (rid) DO UPDATE SET ${set}`,
    values: [
      rows.map((row) => String(row.rid)),
      rows.map((row) => row.id),
      ...PERSON_COLUMNS.map(([name]) => facts.map((f) => f[name])),
    ],
  });
  if (!positions) return;
  await addPositions(
    client,
    facts.map((f) => f.position),
  );
}

async function writeCompanies(client: pg.ClientBase, rows: SearchRow[]): Promise<void> {
  const { names, arrays, set } = upsertStatement(COMPANY_COLUMNS);
  const facts = rows.map((row) => (row.facts ?? factsOf('companies', row.body)) as CompanyFacts);
  const rids = rows.map((row) => String(row.rid));
  await client.query({
    text: `INSERT INTO companies_search (rid, id, ${names.join(', ')})
           SELECT * FROM unnest($1::bigint[], $2::text[], ${arrays})
           ON CONFLICT (rid) DO UPDATE SET ${set}`,
    values: [rids, rows.map((row) => row.id), ...COMPANY_COLUMNS.map(([name]) => facts.map((f) => f[name]))],
  });
  // Their people who have no country of their own take the company's, where it changed.
  await client.query({
    text: `UPDATE people_search p SET country = ${employeesCountrySql('c')}
           FROM companies_search c
           WHERE c.rid = ANY($1::bigint[]) AND p.company_id = c.id AND p.location_country IS NULL
             AND p.country IS DISTINCT FROM ${employeesCountrySql('c')}`,
    values: [rids],
  });
}

/**
 * Writes the search rows of records just written, inside the caller's transaction, and people's positions
 * to the dictionary of positions (`positions` false: before the migration that adds it, which fills it).
 */
export async function writeSearchRows(
  client: pg.ClientBase,
  entity: Entity,
  rows: SearchRow[],
  positions = true,
) {
  if (rows.length === 0) return;
  if (entity === 'people') await writePeople(client, rows, positions);
  else await writeCompanies(client, rows);
}

/**
 * After companies are deleted (their search rows went with them, by cascade): their people who have no
 * country of their own have none now.
 */
export async function forgetEmployeesCountry(client: pg.ClientBase, companyIds: string[]): Promise<void> {
  if (companyIds.length === 0) return;
  await client.query({
    text: `UPDATE people_search SET country = NULL
           WHERE company_id = ANY($1::text[]) AND location_country IS NULL AND country IS NOT NULL`,
    values: [companyIds],
  });
}

const FILL_PAGE = 5_000;

/**
 * Fills an entity's search rows from every stored record (the migration that adds search, 8: the
 * dictionary of positions comes with 9, filled from these rows).
 */
export async function fillSearchRows(client: pg.ClientBase, entity: Entity): Promise<void> {
  for (let after = 0; ; ) {
    const { rows } = await client.query<{ rid: string; id: string; body: string }>({
      text: `SELECT rid, id, body FROM ${entity} WHERE rid > $1 ORDER BY rid LIMIT ${FILL_PAGE}`,
      values: [after],
    });
    await writeSearchRows(
      client,
      entity,
      rows.map((row) => ({ rid: Number(row.rid), id: row.id, body: row.body, facts: undefined })),
      false,
    );
    if (rows.length < FILL_PAGE) return;
    after = Number(rows.at(-1)!.rid);
  }
}
