// Keeps SQLite's search tables in step with the records: every write path (upsert, bulk load, delete,
// suppression) calls these inside its own transaction.
import type Database from 'better-sqlite3';
import type { Entity } from '../../vocabulary/entities.js';
import { type CompanyFacts, factsOf, type PersonFacts, type SearchFacts } from '../search-facts.js';
import {
  COMPANY_COLUMNS,
  columnNames,
  employeesCountry,
  employeesCountrySql,
  PERSON_COLUMNS,
} from '../sql/search-columns.js';
import { ENTITY_TABLES } from '../sql/tables.js';
import {
  createSearchIndexes,
  dropSearchIndexes,
  FACTS_FUNCTION,
  ftsTables,
  PEOPLE_COUNTRIES,
  POSITIONS,
  REBUILD_POSITIONS,
  rebuildFts,
} from './search-schema.js';

/** Registers the facts function the search migration calls, on a connection that may migrate. */
export function registerSearchFunctions(db: Database.Database): void {
  db.function(FACTS_FUNCTION, { deterministic: true }, (entity: unknown, body: unknown) =>
    JSON.stringify(factsOf(entity === 'people' ? 'people' : 'companies', String(body))),
  );
}

const PERSON = columnNames(PERSON_COLUMNS);
const COMPANY = columnNames(COMPANY_COLUMNS);
const named = (columns: readonly string[]) => columns.map((c) => `@${c}`).join(', ');

/** The search columns a person's words come from (each FTS column is one of them, or several joined). */
const PERSON_WORD_SOURCES: ReadonlySet<string> = new Set(
  ftsTables('people').flatMap(({ columns }) => columns.flatMap(([, from]) => from.split(' || '))),
);

/** A person's country: their location's, else their company's (employeesCountry), as SQL over named values. */
const PERSON_COUNTRY = `coalesce(@location_country, (SELECT ${employeesCountrySql('c')}
  FROM companies_search c WHERE c.id = @company_id))`;

/** The columns whose values differ between two records' facts, in the order the facts list them. */
function changedColumns(before: SearchFacts, after: SearchFacts): string[] {
  const previous = before as unknown as Record<string, unknown>;
  return Object.entries(after)
    .filter(([column, value]) => previous[column] !== value)
    .map(([column]) => column);
}

function prepare(db: Database.Database) {
  const fts = (entity: Entity) =>
    ftsTables(entity).map(({ name, columns }) => ({
      remove: db.prepare<[number]>(`DELETE FROM ${name} WHERE rowid = ?`),
      add: db.prepare<[number]>(
        `INSERT INTO ${name} (rowid, ${columns.map(([c]) => c).join(', ')})
         SELECT rid, ${columns.map(([, from]) => from).join(', ')} FROM ${ENTITY_TABLES[entity].search} WHERE rid = ?`,
      ),
    }));
  return {
    putPerson: db.prepare(
      `INSERT OR REPLACE INTO people_search (rid, id, country, ${PERSON.join(', ')})
       VALUES (@rid, @id, ${PERSON_COUNTRY}, ${named(PERSON)})`,
    ),
    putCompany: db.prepare(
      `INSERT OR REPLACE INTO companies_search (rid, id, ${COMPANY.join(', ')})
       VALUES (@rid, @id, ${named(COMPANY)})`,
    ),
    companyCountry: db
      .prepare<[number], string>('SELECT country FROM companies_search WHERE rid = ?')
      .pluck(),
    removePerson: db.prepare<[number]>('DELETE FROM people_search WHERE rid = ?'),
    removeCompany: db.prepare<[number], { id: string; country: string }>(
      'DELETE FROM companies_search WHERE rid = ? RETURNING id, country',
    ),
    employeesCountry: db.prepare<[string | null, string]>(
      'UPDATE people_search SET country = ? WHERE company_id = ? AND location_country IS NULL',
    ),
    peopleBulkUnderWay: db
      .prepare<[], number>("SELECT EXISTS (SELECT 1 FROM bulk_loads WHERE entity = 'people')")
      .pluck(),
    fts: { people: fts('people'), companies: fts('companies') },
    addPosition: db.prepare<[string]>(`INSERT OR IGNORE INTO ${POSITIONS.table} (position) VALUES (?)`),
    positionWords: db.prepare<[number | bigint, string]>(
      `INSERT INTO ${POSITIONS.fts} (rowid, position) VALUES (?, ?)`,
    ),
  };
}

/**
 * The search side of record writes. A person's country is theirs or their company's: a company's write or
 * removal sets it on its people who have none of their own (unless a bulk load of people is under way,
 * which sets every person's at its end).
 */
export class SqliteSearchWrites {
  private readonly statements: ReturnType<typeof prepare>;
  /** A person's row updated by the columns that changed, one statement for each set of them. */
  private readonly personUpdates = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {
    this.statements = prepare(db);
  }

  /**
   * Writes a record's search row and its words, and a person's position to the dictionary of positions;
   * `fts` false during a bulk load (both built at its end).
   */
  put(entity: Entity, rid: number, id: string, facts: SearchFacts | undefined, body: string, fts = true) {
    const derived = facts ?? factsOf(entity, body);
    if (entity === 'people') this.putPerson(rid, id, derived as PersonFacts, fts);
    else this.putCompany(rid, id, derived as CompanyFacts);
    if (fts) this.indexWords(entity, rid);
  }

  /**
   * Rewrites a stored record's search row from its previous body's facts to its new ones: nothing when
   * they are the same, only the columns that changed of a person's row (and their indexes), and its words
   * only when a column they come from changed. Most of a refresh's updates change a few columns.
   */
  replace(
    entity: Entity,
    rid: number,
    id: string,
    facts: SearchFacts | undefined,
    body: string,
    before: string,
  ) {
    const derived = facts ?? factsOf(entity, body);
    const changed = changedColumns(factsOf(entity, before), derived);
    if (changed.length === 0) return;
    if (entity === 'companies' || !this.updatePerson(rid, derived as PersonFacts, changed)) {
      this.put(entity, rid, id, derived, body);
      return;
    }
    if (changed.some((column) => PERSON_WORD_SOURCES.has(column))) this.indexWords(entity, rid);
  }

  private indexWords(entity: Entity, rid: number): void {
    for (const words of this.statements.fts[entity]) {
      words.remove.run(rid);
      words.add.run(rid);
    }
  }

  /** Updates the changed columns of a person's row, and their country with them; false when it has none. */
  private updatePerson(rid: number, facts: PersonFacts, changed: readonly string[]): boolean {
    const key = changed.join(',');
    let update = this.personUpdates.get(key);
    if (!update) {
      const sets = changed.map((column) => `${column} = @${column}`);
      // A person's country is their location's, else their company's: either may have changed it.
      if (changed.includes('location_country') || changed.includes('company_id'))
        sets.push(`country = ${PERSON_COUNTRY}`);
      update = this.db.prepare(`UPDATE people_search SET ${sets.join(', ')} WHERE rid = @rid`);
      this.personUpdates.set(key, update);
    }
    if (update.run({ ...facts, rid }).changes === 0) return false;
    if (changed.includes('position') && facts.position !== '') this.addPosition(facts.position);
    return true;
  }

  private putPerson(rid: number, id: string, facts: PersonFacts, positions: boolean): void {
    this.statements.putPerson.run({ ...facts, rid, id });
    if (positions && facts.position !== '') this.addPosition(facts.position);
  }

  private addPosition(position: string): void {
    const added = this.statements.addPosition.run(position);
    if (added.changes > 0) this.statements.positionWords.run(added.lastInsertRowid, position);
  }

  private putCompany(rid: number, id: string, facts: CompanyFacts): void {
    const before = this.statements.companyCountry.get(rid);
    this.statements.putCompany.run({ ...facts, rid, id });
    const country = employeesCountry(facts.country);
    if (before !== undefined && employeesCountry(before) === country) return;
    this.setEmployeesCountry(id, country);
  }

  private setEmployeesCountry(companyId: string, country: string | null): void {
    if (this.statements.peopleBulkUnderWay.get() === 1) return;
    this.statements.employeesCountry.run(country, companyId);
  }

  /** Removes a record's search row and words. */
  remove(entity: Entity, rid: number): void {
    for (const words of this.statements.fts[entity]) words.remove.run(rid);
    if (entity === 'people') {
      this.statements.removePerson.run(rid);
      return;
    }
    const removed = this.statements.removeCompany.get(rid);
    if (removed && employeesCountry(removed.country) !== null) this.setEmployeesCountry(removed.id, null);
  }

  /** A bulk load begins: rows go in without index upkeep. */
  beginBulk(entity: Entity): void {
    this.db.exec(dropSearchIndexes(entity));
  }

  /**
   * A bulk load ends: indexes built sorted, words indexed, the dictionary of positions filled again (of
   * people), and people's countries worked out again.
   */
  finishBulk(entity: Entity): void {
    this.db.exec(createSearchIndexes(entity));
    this.db.exec(rebuildFts(entity));
    if (entity === 'people') this.db.exec(REBUILD_POSITIONS);
    this.db.exec(PEOPLE_COUNTRIES);
  }
}
