// Writes a matched NDJSON list: each input line as given, its object extended with the match's members.
import type { ListWriter } from './csv-writer.js';
import type { ListRow, MatchedRecord, RowOutcome } from './list.js';

/** The members the match may add to each object, in this order (`enrich_likelihood` to people only). */
export const ADDED_MEMBERS = [
  'enrich_status',
  'enrich_matched_by',
  'enrich_id',
  'enrich_likelihood',
  'enrich_problem',
  'enrich_record',
] as const;

/** How a matched record is written: its JSON text (with --fields, only the fields selected). */
export type RecordText = (record: MatchedRecord) => string;

export class NdjsonWriter implements ListWriter {
  /** `likelihood`: add `enrich_likelihood`, for a list of people, which may be matched by name and company. */
  constructor(
    private readonly recordText: RecordText,
    private readonly likelihood = false,
  ) {}

  head(): string {
    return '';
  }

  rows(rows: readonly ListRow[], outcomes: readonly RowOutcome[]): string {
    let text = '';
    for (let i = 0; i < rows.length; i++) text += `${this.line(rows[i]!, outcomes[i]!)}\n`;
    return text;
  }

  /** `"enrich_status":…,"enrich_record":…`: the added members as JSON text. */
  private members(row: ListRow, outcome: RowOutcome): string {
    const record = outcome.record ? this.recordText(outcome.record) : 'null';
    const likelihood = this.likelihood ? `"enrich_likelihood":${outcome.likelihood ?? 'null'},` : '';
    const problem = outcome.problem ?? row.malformed?.reason;
    return (
      `"enrich_status":${JSON.stringify(outcome.status)},` +
      `"enrich_matched_by":${outcome.matchedBy ? JSON.stringify(outcome.matchedBy) : 'null'},` +
      `"enrich_id":${outcome.id === undefined ? 'null' : JSON.stringify(outcome.id)},` +
      likelihood +
      `"enrich_problem":${problem === undefined ? 'null' : JSON.stringify(problem)},` +
      `"enrich_record":${record}`
    );
  }

  /**
   * The input line with the members added before its closing brace, so its own members stay byte for byte.
   * A line that already has them (matched before) is rewritten with them replaced in place; a line holding
   * no object is kept as a string in `enrich_input`.
   */
  private line(row: ListRow, outcome: RowOutcome): string {
    const members = this.members(row, outcome);
    if (!row.object) return `{${members},"enrich_input":${JSON.stringify(row.text ?? '')}}`;
    if (ADDED_MEMBERS.some((name) => Object.hasOwn(row.object!, name))) {
      return JSON.stringify({ ...row.object, ...JSON.parse(`{${members}}`) });
    }
    const text = row.text!.trimEnd();
    const empty = Object.keys(row.object).length === 0;
    return `${text.slice(0, -1)}${empty ? '' : ','}${members}}`;
  }
}
