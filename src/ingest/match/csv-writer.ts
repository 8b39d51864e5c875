// Writes a matched CSV list: every input row in order with its own values, then the columns the match adds.
import { stringify } from 'csv-stringify/sync';
import type { ListShape } from './detect.js';
import { flatValue, valueAt } from './flatten.js';
import type { ListRow, MatchedRecord, RowOutcome } from './list.js';

/** Turns batches of rows and their outcomes into output text. */
export interface ListWriter {
  /** What the output opens with (the header row, for CSV). */
  head(): string;
  rows(rows: readonly ListRow[], outcomes: readonly RowOutcome[]): string;
}

export const STATUS_COLUMN = 'enrich_status';
export const MATCHED_BY_COLUMN = 'enrich_matched_by';
export const ID_COLUMN = 'enrich_id';

const recordValue = (record: MatchedRecord): unknown =>
  'value' in record ? record.value : JSON.parse(record.json.toString());

/**
 * The added columns' names and where each goes. A field's column is named by its path (`current_company.name`),
 * or `enrich_<path>` when an input column has that name already. An added column whose name starts with
 * `enrich_` takes the place of an input column of that name (the output of an earlier match), so a list
 * matched again is refreshed rather than widened.
 */
export function addedColumns(header: readonly string[], fieldPaths: readonly string[]) {
  const names = [STATUS_COLUMN, MATCHED_BY_COLUMN, ID_COLUMN];
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
  private readonly added: ReturnType<typeof addedColumns>;
  private readonly paths: string[][];
  private readonly options: Parameters<typeof stringify>[1];

  constructor(
    private readonly header: readonly string[],
    private readonly shape: ListShape,
    selected: readonly string[],
  ) {
    // The record's id is enrich_id already.
    const fieldPaths = [...new Set(selected)].filter((path) => path !== 'id');
    this.added = addedColumns(header, fieldPaths);
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
    return (this.shape.bom ? '\ufeff' : '') + stringify([cells], this.options);
  }

  rows(rows: readonly ListRow[], outcomes: readonly RowOutcome[]): string {
    return stringify(
      rows.map((row, i) => this.cells(row.fields ?? [], outcomes[i]!)),
      this.options,
    );
  }

  private cells(fields: readonly string[], outcome: RowOutcome): string[] {
    const { slots, width } = this.added;
    const cells = fields.slice();
    for (let i = fields.length; i < width; i++) cells.push('');
    cells[slots[0]!] = outcome.status;
    cells[slots[1]!] = outcome.matchedBy ? flatValue(outcome.matchedBy) : '';
    cells[slots[2]!] = outcome.id ?? '';
    if (this.paths.length > 0) {
      const record = outcome.record && recordValue(outcome.record);
      this.paths.forEach((path, i) => {
        cells[slots[3 + i]!] = flatValue(valueAt(record, path));
      });
    }
    return cells;
  }
}
