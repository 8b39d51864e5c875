// The JSON of a bulk's results: `{"ref", "status", "matched_by", "record"}` for a match, with the record spliced
// in as its stored bytes (or projected onto `fields`), and `{"ref", "status", "problem"}` otherwise, the
// problem being the very document the single GET would answer.
import type { BulkOutcome } from '../lookup/bulk.js';
import { type FieldTree, projectRecord } from '../lookup/fields.js';
import type { BodyBuilder } from './bytes.js';
import { problemDocument } from './problem.js';

/** `matched_by` as JSON text, made once per combination of parameters. */
const matchedByTexts = new Map<string, string>();

function matchedByText(matchedBy: string[]): string {
  const key = matchedBy.join(',');
  let text = matchedByTexts.get(key);
  if (text === undefined) {
    text = JSON.stringify(matchedBy);
    matchedByTexts.set(key, text);
  }
  return text;
}

/** Writes results of one request: its problems carry the request's id. */
export class ResultWriter {
  constructor(
    private readonly requestId: string,
    private readonly fields: FieldTree | undefined,
  ) {}

  /** Appends one result's JSON text to `body`. */
  write(body: BodyBuilder, ref: string | undefined, outcome: BulkOutcome): void {
    body.text(ref === undefined ? '{"status":"' : `{"ref":${JSON.stringify(ref)},"status":"`);
    body.text(outcome.status);
    if (outcome.status === 'matched') {
      body.text(`","matched_by":${matchedByText(outcome.matchedBy)},"record":`);
      const { body: record } = outcome.record;
      body.bytes(this.fields === undefined ? record : projectRecord(record, this.fields));
      body.text('}');
    } else {
      body.text(`","problem":${problemDocument(outcome.problem, this.requestId)}}`);
    }
  }
}
