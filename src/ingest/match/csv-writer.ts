// Writes a matched CSV list: every input row in order with its own values, then the columns the match adds.
import { stringify } from 'csv-stringify/sync';
import { neutraliseRow } from '../formula-guard.js';
import type { ListShape } from './detect.js';
import { flatValue, valueAt } from './flatten.js';
import type { ListRow, MatchedRecord, RowOutcome } from './list.js';

/** Turns batches of rows and their outcomes into output text. */
export interface ListWriter {
  /** What the output opens with (the header row, for CSV). */
  head(): string;
  rows(rows: readonly ListRow[], outcomes: readonly RowOutcome[]): string;
}

/** What the match adds to a row, besides the fields asked for: a column each, in this order. */
type Added = 'status' | 'matched_by' | 'id' | 'likelihood' | 'problem';

export interface CsvWriterOptions {
  /** Add `enrich_likelihood`: a list of people, which may be matched by name and company. */
  likelihood?: boolean;
  /** Prefix cells a spreadsheet would run as formulas with `'` (OWASP); default true. */
  formulaGuard?: boolean;
}

/** The added columns of a list, by what it may be matched by. */
const addedOf = (likelihood: boolean): Added[] =>
  likelihood
    ? ['status', 'matched_by', 'id', 'likelihood', 'problem']
    : ['status', 'matched_by', 'id', 'problem'];

/** A row's cell for an added column. */
function addedCell(added: Added, outcome: RowOutcome, row: ListRow): string {
  switch (added) {
    case 'status':
      return outcome.status;
    case 'matched_by':
      return outcome.matchedBy ? flatValue(outcome.matchedBy) : '';
    case 'id':
      return outcome.id ?? '';
    case 'likelihood':
      return outcome.likelihood === undefined ? '' : String(outcome.likelihood);
    case 'problem':
      return outcome.problem ?? row.malformed?.reason ?? '';
  }
}

const recordValue = (record: MatchedRecord): unknown =>
  'value' in record ? record.value : JSON.parse(record.json.toString());

/**
 * The added columns' names and where each goes. A field's column is named by its path (`current_company.name`),
 * or `enrich_<path>` when an input column has that name already. An added column whose name starts with
 * `enrich_` takes the place of an input column of that name (the output of an earlier match), so a list
 * matched again is refreshed rather than widened.
 */
export function addedColumns(
  header: readonly string[],
  fieldPaths: readonly string[],
  added: readonly Added[] = addedOf(false),
) {
  const names = added.map((name) => `enrich_${name}`);
  for (const path of fieldPaths)
    names.push(header.includes(path) || names.includes(path) ? `enrich_${path}` : path);
  let appended = header.length;
  const slots = names.map((name) => {
    const existing = name.startsWith('enrich_') ? header.indexOf(name) : -1;
    return existing >= 0 ? existing : appended++;
  });
  return { names, slots, width: appended };
}

export class CsvWriter implements ListWriter {
  private readonly kinds: Added[];
  private readonly added: ReturnType<typeof addedColumns>;
  private readonly paths: string[][];
  private readonly options: Parameters<typeof stringify>[1];
  private readonly guard: (cells: readonly string[]) => readonly string[];

  constructor(
    private readonly header: readonly string[],
    private readonly shape: ListShape,
    selected: readonly string[],
    { likelihood = false, formulaGuard = true }: CsvWriterOptions = {},
  ) {
    // The record's id is enrich_id already.
    const fieldPaths = [...new Set(selected)].filter((path) => path !== 'id');
    this.kinds = addedOf(likelihood);
    this.added = addedColumns(header, fieldPaths, this.kinds);
    this.guard = formulaGuard ? neutraliseRow : (cells) => cells;
    this.paths = fieldPaths.map((path) => path.split('.'));
    this.options = {
      delimiter: shape.delimiter,
      record_delimiter: shape.lineEnding === '\r\n' ? 'windows' : 'unix',
    };
  }

  head(): string {
    const cells = [...this.header];
    this.added.names.forEach((name, i) => {
      cells[this.added.slots[i]!] = name;
    });
    return (this.shape.bom ? '\ufeff' : '') + stringify([this.guard(cells)], this.options);
  }

  rows(rows: readonly ListRow[], outcomes: readonly RowOutcome[]): string {
    return stringify(
      rows.map((row, i) => this.guard(this.cells(row, outcomes[i]!))),
      this.options,
    );
  }

  private cells(row: ListRow, outcome: RowOutcome): string[] {
    const { slots, width } = this.added;
    const fields = row.fields ?? [];
    const cells = fields.slice();
    for (let i = fields.length; i < width; i++) cells.push('');
    const { kinds } = this;
    for (let i = 0; i < kinds.length; i++) cells[slots[i]!] = addedCell(kinds[i]!, outcome, row);
    if (this.paths.length > 0) {
      const record = outcome.record && recordValue(outcome.record);
      this.paths.forEach((path, i) => {
        cells[slots[kinds.length + i]!] = flatValue(valueAt(record, path));
      });
    }
    return cells;
  }
}
