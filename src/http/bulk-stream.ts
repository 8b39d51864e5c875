// A bulk sent as NDJSON: one result line per input line, in order, written as batches resolve, paced at the
// key's rate, in constant memory (the body is read only as fast as results are taken). A client that goes
// away stops the work. A failure once results have begun ends the stream with one error line, as does a key
// revoked, expired or stripped of its scope (checked before each batch) and a stream on which nothing moves.
import { ProblemError, toProblem } from '../errors.js';
import { invalidBody, MAX_STREAM_LINES, parseBulkItem, tooManyItems } from '../lookup/bulk-request.js';
import { givenParams } from '../lookup/item.js';
import type { LookupOperation } from '../lookup/operations.js';
import { StoreUnavailableError } from '../store/unavailable.js';
import type { Gate } from './admission.js';
import { type BatchItem, lookupBatch } from './bulk-batch.js';
import type { BulkCall } from './bulk-call.js';
import { ResultWriter } from './bulk-results.js';
import { BodyBuilder, release } from './bytes.js';
import { parseJsonText } from './json-syntax.js';
import { problemDocument } from './problem.js';
import { type BodyLine, lineBatches } from './request-body.js';
import { releaseBodyDeadline } from './request-deadline.js';

/** The longest line read; a longer one gets an `invalid` result and is skipped. */
export const MAX_LINE_BYTES = 64 * 1024;
const NDJSON_TYPE = 'application/x-ndjson; charset=utf-8';
/**
 * Lines per batch at most: a batch costs one limiter call, one quota reservation, one journal write and one
 * socket write. A stream of 400,000 lookups ran 12.6% faster in batches of 500 than of 100, and no faster
 * in batches of 1,000 (BENCHMARKS.md).
 */
const MAX_BATCH = 500;

/** Lines per batch for a key: a tenth of a second's worth, so that pacing stays smooth at low rates. */
const batchSize = (rate: number) => Math.max(1, Math.min(MAX_BATCH, Math.floor(rate / 10)));

/**
 * The response side of a stream: chunks written as the turn's accounting is committed. `closed` once nothing
 * more can be written: the stream was ended, or the client went away.
 */
class Outlet {
  closed = false;
  private readonly whenClosed: Promise<void>;
  private close!: () => void;

  constructor(private readonly call: BulkCall) {
    this.whenClosed = new Promise((resolve) => {
      this.close = () => {
        this.closed = true;
        resolve();
      };
    });
    call.res.once('close', () => this.close());
  }

  /** Waits `ms`, or less if the stream closes meanwhile. */
  async sleep(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const slept = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    await Promise.race([slept, this.whenClosed]);
    clearTimeout(timer);
  }

  /** Writes a chunk once its records are committed; resolves when the client has taken it in (or gone). */
  send(chunk: Buffer[]): Promise<void> {
    const { res } = this.call;
    return new Promise((resolve, reject) => {
      this.call.deps.turns.hold({
        keyed: true,
        send: () => {
          if (this.closed) return resolve();
          let more = true;
          // Once the socket has taken the last view, the segments go back for reuse.
          chunk.forEach((view, i) => {
            more = i < chunk.length - 1 ? res.write(view) : res.write(view, () => release(chunk));
          });
          if (more) return resolve();
          const drained = new Promise<void>((done) => res.once('drain', done));
          void Promise.race([drained, this.whenClosed]).then(() => resolve());
        },
        refuse: () => reject(new StoreUnavailableError()),
      });
    });
  }

  /** Ends the stream, with a last line carrying the problem that stopped it, if one did. */
  end(problem?: ProblemError): void {
    const { res, req } = this.call;
    if (this.closed) return;
    this.close();
    if (problem === undefined) {
      res.end();
      return;
    }
    // The rest of the body is not read: the connection closes once the last line has gone.
    res.shouldKeepAlive = false;
    res.end(`{"status":"error","problem":${problemDocument(problem, this.call.id)}}\n`);
    if (!req.complete) res.once('finish', () => req.socket.end());
  }
}

/** A line's item: its params and ref, or an `invalid` outcome saying what is wrong with the line. */
function lineItem(operation: LookupOperation, line: BodyLine): BatchItem & { ref: string | undefined } {
  if ('tooLong' in line) {
    const detail = `line ${line.number} is longer than ${MAX_LINE_BYTES.toLocaleString('en')} bytes.`;
    return refused(invalidBody('$', detail, { line: line.number, max_bytes: MAX_LINE_BYTES }));
  }
  let value: unknown;
  try {
    value = parseJsonText(line.text, line.number);
    const { params, ref } = parseBulkItem(value, '$');
    return { params, given: givenParams(operation, params), ref };
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    return refused(onLine(error, line.number), (value as { ref?: unknown } | null)?.ref);
  }
}

/** The item of a line that is refused: its problem, and its ref when the line gave a usable one. */
const refused = (problem: ProblemError, ref?: unknown) => ({
  params: undefined,
  given: [],
  ref: typeof ref === 'string' && ref.length <= 256 ? ref : undefined,
  decided: { status: 'invalid' as const, problem },
});

/** A problem with a line's item, saying which line. */
const onLine = (problem: ProblemError, number: number) =>
  problem.extensions.line === number
    ? problem
    : new ProblemError(problem.code, `line ${number}: ${problem.detail}`, {
        ...problem.extensions,
        line: number,
      });

/** Takes `cost` tokens, waiting as long as the bucket needs each time it is empty; returns early if the client goes. */
async function pace(call: BulkCall, outlet: Outlet, cost: number): Promise<void> {
  if (cost <= 0) return;
  for (;;) {
    const decision = await call.take(cost);
    if (decision.allowed || outlet.closed) return;
    await outlet.sleep(decision.waitMs);
  }
}

/** The stream's last line when the server stops: what was answered is kept, the rest is to be sent again. */
const shuttingDown = () =>
  new ProblemError(
    'unavailable',
    'The server is shutting down: send the lines after the last result again.',
    {},
    { 'retry-after': '2' },
  );

/** The stream's last line when nothing has moved on it for `ms`. */
const idle = (ms: number) =>
  new ProblemError(
    'request_timeout',
    `Nothing was sent or taken on this stream for ${ms / 1000} s: it is closed. Send the lines after the last result again.`,
  );

/**
 * Ends the stream when nothing is read or written on its connection for the deps' idle time: a client that
 * neither sends lines nor takes results cannot hold the connection.
 */
function endWhenIdle(call: BulkCall, outlet: Outlet): void {
  const ms = call.deps.streamIdleMs;
  call.res.setTimeout(ms, () => {
    outlet.end(idle(ms));
    call.req.socket.destroySoon();
  });
}

/**
 * Answers an admitted stream: its problems so far (401, 403, 429, 400 for `fields`) were the request's; the
 * token it was admitted with paid for its first line. Before each batch the key is checked again as
 * admission does (`gate`'s scopes): a refusal is the stream's last line. `stopping` is told how to end the
 * stream early (the server is shutting down).
 */
export async function streamBulk(
  call: BulkCall,
  gate: Gate<BulkCall>,
  stopping: Set<() => void>,
): Promise<void> {
  const key = call.key!;
  const { lookup } = call.operation;
  const writer = new ResultWriter(call.id, call.selection);
  // Routed and admitted: its body may now take as long as its key's rate needs, moving all the while.
  releaseBodyDeadline(call.req);
  call.started = true;
  call.res.writeHead(200, { ...call.headers, 'content-type': NDJSON_TYPE });
  call.res.flushHeaders();
  const outlet = new Outlet(call);
  endWhenIdle(call, outlet);
  const stop = () => outlet.end(shuttingDown());
  stopping.add(stop);
  call.res.once('close', () => stopping.delete(stop));
  let prepaid = 1;
  let lines = 0;
  try {
    for await (const batch of lineBatches(call.req, MAX_LINE_BYTES, batchSize(key.rate))) {
      const taken = batch.slice(0, MAX_STREAM_LINES - lines);
      await pace(call, outlet, taken.length - prepaid);
      prepaid = Math.max(0, prepaid - taken.length);
      if (outlet.closed) return;
      await call.deps.admission.recheck(call, gate);
      const items = taken.map((line) => lineItem(lookup, line));
      const { outcomes } = await lookupBatch(call, items);
      const out = new BodyBuilder();
      for (let i = 0; i < outcomes.length; i++) {
        writer.write(out, items[i]!.ref, outcomes[i]!);
        out.text('\n');
      }
      await outlet.send(out.take());
      lines += taken.length;
      if (taken.length < batch.length) {
        const given = `The stream holds more than ${MAX_STREAM_LINES.toLocaleString('en')} lines`;
        return outlet.end(tooManyItems(given, MAX_STREAM_LINES));
      }
      if (outlet.closed) return;
    }
    outlet.end();
  } catch (error) {
    if (outlet.closed || call.gone) return;
    const problem = toProblem(error);
    if (problem.status >= 500) call.deps.requests.failed(error, call.route, call.id, 'bulk stream failed');
    outlet.end(problem);
  }
}
