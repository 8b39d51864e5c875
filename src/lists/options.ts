// What a list job is asked to do and the bounds it keeps: its column mapping and fields (as `enrich match`
// takes them), the rows it may hold, and how long its result is kept.
import { ProblemError } from '../errors.js';
import { fieldSelection } from '../ingest/match/fields.js';
import { mapColumns, type OpenList, openList, operationOf, parseOverride } from '../ingest/match/index.js';
import { ListError } from '../ingest/match/list.js';
import type { Entity } from '../vocabulary/entities.js';

/** The most rows a list may hold. */
export const MAX_LIST_ROWS = 1_000_000;
/** Days a job and its result are kept once it has ended (or, never run, since it was made). */
export const RESULT_DAYS = 7;

/** As `enrich match` takes them: `--map COLUMN=PARAM` (repeatable; `COLUMN=` leaves it unused), `--fields`. */
export interface ListOptions {
  map: string[];
  fields: string | null;
}

/** A column used for lookups and the parameters it gives, as a job shows its mapping. */
export interface ColumnMapping {
  column: string;
  params: string[];
}

/** A list's problem as the client's: `enrich match`'s flags named as the query's parameters. */
const asQuery = (message: string) => message.replaceAll('--map', 'map').replaceAll('--fields', 'fields');

/** Checks the options against the entity (fields) before anything is read; throws a 400. */
export async function checkOptions(entity: Entity, options: ListOptions): Promise<void> {
  try {
    for (const given of options.map) parseOverride(given);
    if (options.fields !== null) await fieldSelection(entity, options.fields);
  } catch (error) {
    if (error instanceof ListError)
      throw new ProblemError('invalid_parameter', asQuery(error.message), { parameter: 'map' });
    if (error instanceof ProblemError)
      throw new ProblemError('invalid_parameter', `fields: ${error.detail}`, { parameter: 'fields' });
    throw error;
  }
}

/**
 * Opens an uploaded list as `enrich match` would and maps its columns: its format (which must be the one its
 * Content-Type said) and the columns it is matched by. A list that cannot be matched is a 400 saying why.
 */
export async function inspectList(
  path: string,
  entity: Entity,
  options: ListOptions,
  declared: 'csv' | 'ndjson',
): Promise<ColumnMapping[]> {
  let list: OpenList | undefined;
  try {
    list = await openList(path);
    if (list.shape.format !== declared) {
      const named = { csv: 'CSV (text/csv)', ndjson: 'NDJSON (application/x-ndjson)' };
      throw new ListError(
        `the body is ${named[list.shape.format]}, but its Content-Type says ${named[declared]}`,
      );
    }
    const uses = mapColumns(list.reader.columns, operationOf(entity), options.map.map(parseOverride));
    return uses.map((use) => ({ column: use.header, params: use.params }));
  } catch (error) {
    if (error instanceof ListError) {
      throw new ProblemError('invalid_body', `The list cannot be matched: ${asQuery(error.message)}.`);
    }
    throw error;
  } finally {
    await list?.close();
  }
}
