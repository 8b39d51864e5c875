// The SQLite search tables: derived columns per record (src/store/search-facts.ts) with the indexes the searches
// use, and an FTS5 index of their words; as a migration, and as a bulk load drops and rebuilds them.
import type { Entity } from '../../vocabulary/entities.js';
import {
  COMPANY_COLUMNS,
  columnNames,
  employeesCountrySql,
  PERSON_COLUMNS,
  TEXT_FIELDS,
} from '../sql/search-columns.js';
import { ENTITY_TABLES } from '../sql/tables.js';

/** The SQL function (registered on every connection) giving a body's facts as JSON: facts(entity, body). */
export const FACTS_FUNCTION = 'enrich_search_facts';

/** What a company's country gives its people who have none of their own (employeesCountry). */
const PEOPLE_COUNTRY_OF_COMPANY = `(SELECT ${employeesCountrySql('c')}
  FROM companies_search c WHERE c.id = people_search.company_id)`;

/** Secondary indexes: each serves a search in id order (companyId; seniority + department + country; …). */
const INDEXES: Readonly<Record<Entity, string[]>> = {
  people: [
    'CREATE UNIQUE INDEX IF NOT EXISTS people_search_id ON people_search (id)',
    'CREATE INDEX IF NOT EXISTS people_search_company ON people_search (company_id, id)',
    'CREATE INDEX IF NOT EXISTS people_search_role ON people_search (seniority, department, country, id)',
    'CREATE INDEX IF NOT EXISTS people_search_country ON people_search (country, id)',
    'CREATE INDEX IF NOT EXISTS people_search_state ON people_search (state, id)',
    'CREATE INDEX IF NOT EXISTS people_search_position ON people_search (position, id)',
  ],
  companies: ['CREATE UNIQUE INDEX IF NOT EXISTS companies_search_id ON companies_search (id)'],
};

const indexName = (sql: string) => /EXISTS (\w+)/.exec(sql)![1]!;

/** Creates the entity's search indexes (sorted, in one pass each). */
export const createSearchIndexes = (entity: Entity) => `${INDEXES[entity].join(';\n')};`;

/** Their names: what a store caught during a bulk load lacks (schema-check.ts). */
export const searchIndexNames = (entity: Entity) => INDEXES[entity].map(indexName);

/** Drops them, for a bulk load that rebuilds them at its end. */
export const dropSearchIndexes = (entity: Entity) =>
  INDEXES[entity].map((sql) => `DROP INDEX IF EXISTS ${indexName(sql)};`).join('\n');

/** An FTS5 index: its columns (and what fills each, from the search table) and the word starts it keeps. */
export interface FtsTable {
  name: string;
  columns: Array<[column: string, from: string]>;
  prefix: string;
}

/** The FTS5 indexes of each entity's search rows: words kept with their starts of 2 and 3 letters. */
const FTS: Readonly<Record<Entity, FtsTable[]>> = {
  people: [
    {
      name: 'people_fts',
      columns: [
        ['text', TEXT_FIELDS.people.join(' || ')],
        ['skills', 'skills'],
        ['location', 'location'],
      ],
      prefix: '2 3',
    },
  ],
  companies: [
    { name: 'companies_fts', columns: [['text', TEXT_FIELDS.companies.join(' || ')]], prefix: '2 3' },
  ],
};

export const ftsTables = (entity: Entity) => FTS[entity];

/**
 * Fills the FTS indexes from the search table, emptied first, and merges each into one segment: a prefix
 * query then reads one list per term (seven times faster for a common start such as `eng`).
 */
export function rebuildFts(entity: Entity): string {
  const { search } = ENTITY_TABLES[entity];
  return FTS[entity]
    .map(
      ({ name, columns }) => `INSERT INTO ${name} (${name}) VALUES ('delete-all');
    INSERT INTO ${name} (rowid, ${columns.map(([c]) => c).join(', ')})
      SELECT rid, ${columns.map(([, from]) => from).join(', ')} FROM ${search} ORDER BY rid;
    INSERT INTO ${name} (${name}) VALUES ('optimize');`,
    )
    .join('\n');
}

const PERSON_COUNTRY = `coalesce(location_country, ${PEOPLE_COUNTRY_OF_COMPANY})`;

/** Every person's country: their location's, else their company's (rows already right are not rewritten). */
export const PEOPLE_COUNTRIES = `UPDATE people_search SET country = ${PERSON_COUNTRY} WHERE country IS NOT ${PERSON_COUNTRY};`;

/**
 * The dictionary of positions: each distinct position of the people search table (folded words), and an
 * FTS5 index of its words with their starts of 2 to 8 letters. A position search matches the words against
 * these few texts, then finds the people holding the matching positions by the position index, reading no
 * person's row to count them. Positions are added as people are written and never removed (a position no
 * one holds any longer matches nobody), so none on file is ever missing from it.
 */
export const POSITIONS = { table: 'people_positions', fts: 'people_positions_fts' } as const;

/** Adds the positions of people search rows not yet in the dictionary, and their words. */
const addPositions = (where: string) => `
  INSERT OR IGNORE INTO ${POSITIONS.table} (position)
    SELECT DISTINCT position FROM people_search WHERE position <> '' ${where} ORDER BY position;`;

/** The dictionary filled afresh from the people search table, with its FTS index. */
export const REBUILD_POSITIONS = `
  DELETE FROM ${POSITIONS.table};
  ${addPositions('')}
  INSERT INTO ${POSITIONS.fts} (${POSITIONS.fts}) VALUES ('delete-all');
  INSERT INTO ${POSITIONS.fts} (rowid, position) SELECT rowid, position FROM ${POSITIONS.table};
  INSERT INTO ${POSITIONS.fts} (${POSITIONS.fts}) VALUES ('optimize');`;

/**
 * The migration that adds the dictionary of positions and the position index, and drops the FTS index of
 * every person's position it replaces. Self-contained, and idempotent: run again over its own tables (a
 * store whose version was set back), it rebuilds them.
 */
export const POSITIONS_MIGRATION = `
  DROP TABLE IF EXISTS people_position_fts;
  CREATE TABLE IF NOT EXISTS ${POSITIONS.table} (position TEXT NOT NULL UNIQUE);
  CREATE VIRTUAL TABLE IF NOT EXISTS ${POSITIONS.fts} USING fts5(
    position, content = '', contentless_delete = 1, tokenize = 'ascii', prefix = '2 3 4 5 6 7 8'
  );
  CREATE INDEX IF NOT EXISTS people_search_position ON people_search (position, id);
  ${REBUILD_POSITIONS}
`;

/**
 * The ascii tokenizer splits only at ASCII punctuation and spaces: the stored words (letters and digits
 * of any script, one space between) are its tokens exactly, whatever Unicode version SQLite knows.
 * Contentless: the search table holds the text.
 */
const fts = (entity: Entity) =>
  FTS[entity]
    .map(
      ({ name, columns, prefix }) => `CREATE VIRTUAL TABLE ${name} USING fts5(
     ${columns.map(([c]) => c).join(', ')},
     content = '', contentless_delete = 1, tokenize = 'ascii', prefix = '${prefix}'
   );`,
    )
    .join('\n');

/** Rows of the search table from the facts of every stored record. */
function fill(entity: Entity, columns: readonly string[]): string {
  const { search, records } = ENTITY_TABLES[entity];
  return `INSERT INTO ${search} (rid, id, ${columns.join(', ')})
    SELECT rid, id, ${columns.map((c) => `json_extract(f, '$.${c}')`).join(', ')}
    FROM (SELECT rid, id, ${FACTS_FUNCTION}('${entity}', body) AS f FROM ${records});`;
}

/**
 * The migration that adds search: tables, filled from every stored record, with their indexes and FTS.
 * Self-contained, so that it can take whatever number it lands on.
 */
export const SEARCH_MIGRATION = `
  CREATE TABLE people_search (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    company_id TEXT,
    seniority INTEGER,
    department INTEGER,
    location_country TEXT,
    country TEXT,
    state TEXT,
    position TEXT NOT NULL,
    name TEXT NOT NULL,
    headline TEXT NOT NULL,
    skills TEXT NOT NULL,
    skill_keys TEXT NOT NULL,
    location TEXT NOT NULL
  );
  CREATE TABLE companies_search (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    country TEXT NOT NULL,
    states TEXT NOT NULL,
    industries TEXT NOT NULL,
    technologies TEXT NOT NULL,
    size TEXT NOT NULL,
    revenue TEXT NOT NULL,
    year_founded INTEGER,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    keywords TEXT NOT NULL
  );
  ${fill('companies', columnNames(COMPANY_COLUMNS))}
  ${createSearchIndexes('companies')}
  ${fill('people', columnNames(PERSON_COLUMNS))}
  ${PEOPLE_COUNTRIES}
  ${createSearchIndexes('people')}
  ${fts('people')}
  ${fts('companies')}
  ${rebuildFts('people')}
  ${rebuildFts('companies')}
`;
