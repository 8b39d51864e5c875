// Entries added to a watchlist over HTTP: a JSON body's results in one answer, or an NDJSON body read line by
// line in batches and answered a result line per entry as each batch is written, in constant memory.
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { ProblemError, toProblem } from '../errors.js';
import { invalidBody } from '../lookup/bulk-request.js';
import type { RecordStore } from '../store/records.js';
import type { Watchlist, WatchlistStore } from '../store/watchlists.js';
import {
  addEntries,
  type EntryRequest,
  type EntryResult,
  MAX_WATCHLIST_ENTRIES,
  parseEntry,
  usableRef,
} from '../watchlists/entries.js';
import { parseJsonText } from './json-syntax.js';
import { problemDocument } from './problem.js';
import { type BodyLine, lineBatches } from './request-body.js';

/** The longest line read; a longer one gets an `invalid` result and is skipped. */
const MAX_LINE_BYTES = 64 * 1024;
/** Lines resolved and written per transaction. */
const STREAM_BATCH = 1000;

export type EntryStore = RecordStore & WatchlistStore;

/** One result as JSON text: the record watched, or the problem its lookup would answer. */
export function resultJson(result: EntryResult, requestId: string): string {
  const ref = result.ref === undefined ? '' : `"ref":${JSON.stringify(result.ref)},`;
  if (result.status === 'watching') {
    return `{${ref}"status":"watching","${result.kind}_id":${JSON.stringify(result.record_id)}}`;
  }
  return `{${ref}"status":"${result.status}","problem":${problemDocument(result.problem, requestId)}}`;
}

/** A line's entry, or its `invalid` result saying what is wrong with the line. */
function lineEntry(line: BodyLine): EntryRequest | EntryResult {
  if ('tooLong' in line) {
    const detail = `line ${line.number} is longer than ${MAX_LINE_BYTES.toLocaleString('en')} bytes.`;
    const problem = invalidBody('$', detail, { line: line.number, max_bytes: MAX_LINE_BYTES });
    return { ref: undefined, status: 'invalid', problem };
  }
  let value: unknown;
  try {
    value = parseJsonText(line.text, line.number);
    return parseEntry(value, '$');
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    const problem =
      error.extensions.line === line.number
        ? error
        : new ProblemError(error.code, `line ${line.number}: ${error.detail}`, {
            ...error.extensions,
            line: line.number,
          });
    return { ref: usableRef(value), status: 'invalid', problem };
  }
}

/** The stream's last line when it stops before its input ends: the problem, as a bulk stream's. */
const errorLine = (problem: ProblemError, requestId: string) =>
  `{"status":"error","problem":${problemDocument(problem, requestId)}}\n`;

/**
 * The results of an NDJSON body of entries, as text to send: each batch of lines resolved and added in one
 * transaction before its results are given, the body read only as fast as they are taken. A failure, or
 * passing the watchlist's limit, ends it with an error line; the entries of the batches before it stand.
 */
async function* entryStream(
  store: EntryStore,
  watchlist: Watchlist,
  request: FastifyRequest,
): AsyncGenerator<string> {
  let { size } = watchlist;
  let lines = 0;
  try {
    for await (const batch of lineBatches(request.raw, MAX_LINE_BYTES, STREAM_BATCH)) {
      lines += batch.length;
      if (lines > MAX_WATCHLIST_ENTRIES) {
        const detail = `The stream holds more than ${MAX_WATCHLIST_ENTRIES.toLocaleString('en')} entries, as many as a watchlist may hold.`;
        yield errorLine(
          new ProblemError('payload_too_large', detail, { max_items: MAX_WATCHLIST_ENTRIES }),
          request.id,
        );
        return;
      }
      const added = await addEntries(store, { id: watchlist.id, size }, batch.map(lineEntry));
      size = added.size;
      let text = '';
      for (const result of added.results) text += `${resultJson(result, request.id)}\n`;
      yield text;
    }
  } catch (error) {
    const problem = toProblem(error);
    if (problem.status >= 500) request.log.error({ err: error }, 'watchlist entry stream failed');
    request.raw.resume();
    yield errorLine(problem, request.id);
  }
}

/** An NDJSON body's results as a stream of text (application/x-ndjson), for the route to send. */
export function streamEntries(store: EntryStore, watchlist: Watchlist, request: FastifyRequest): Readable {
  return Readable.from(entryStream(store, watchlist, request), { objectMode: false });
}

/** A JSON body's entries, added; the answer's text: every result, and the watchlist's size after. */
export async function answerEntries(
  store: EntryStore,
  watchlist: Watchlist,
  entries: EntryRequest[],
  requestId: string,
): Promise<string> {
  const { results, size } = await addEntries(store, watchlist, entries);
  return `{"results":[${results.map((result) => resultJson(result, requestId)).join(',')}],"size":${size}}`;
}
