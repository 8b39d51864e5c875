// The JSON of a bulk's results: `{"ref", "status", "matched_by", "match_likelihood"?, "record"}` for a match, with the record spliced
// in as its stored bytes (or projected onto `fields`), and `{"ref", "status", "problem"}` otherwise, the
// problem being the very document the single GET would answer.
import type { BulkOutcome } from '../lookup/bulk.js';
import { type FieldTree, projectRecord } from '../lookup/fields.js';
import type { BodyBuilder } from './bytes.js';
import { problemDocument } from './problem.js';

/** What a match's result says before its record, made once per combination of parameters. */
const matchedHeads = new Map<string, Buffer>();

/**
 * `"status":"matched","matched_by":[…],"record":` as bytes, with `"match_likelihood":n` before the record
 * for a match by name and company.
 */
function matchedHead(matchedBy: string[], likelihood: number | undefined): Buffer {
  const names = matchedBy.length === 1 ? matchedBy[0]! : matchedBy.join(',');
  const key = likelihood === undefined ? names : `${names};${likelihood}`;
  let head = matchedHeads.get(key);
  if (head === undefined) {
    const scored = likelihood === undefined ? '' : `,"match_likelihood":${likelihood}`;
    head = Buffer.from(`"status":"matched","matched_by":${JSON.stringify(matchedBy)}${scored},"record":`);
    matchedHeads.set(key, head);
  }
  return head;
}

/** Writes results of one request: its problems carry the request's id. */
export class ResultWriter {
  constructor(
    private readonly requestId: string,
    private readonly fields: FieldTree | undefined,
  ) {}

  /** Appends one result's JSON text to `body`. */
  write(body: BodyBuilder, ref: string | undefined, outcome: BulkOutcome): void {
    body.text(ref === undefined ? '{' : `{"ref":${JSON.stringify(ref)},`);
    if (outcome.status === 'matched') {
      body.bytes(matchedHead(outcome.matchedBy, outcome.likelihood));
      const { body: record } = outcome.record;
      body.bytes(this.fields === undefined ? record : projectRecord(record, this.fields));
      body.text('}');
    } else {
      body.text(
        `"status":"${outcome.status}","problem":${problemDocument(outcome.problem, this.requestId)}}`,
      );
    }
  }
}
