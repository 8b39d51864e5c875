// A request's body read as it arrives: whole and bounded (a JSON bulk), or as lines in batches (a stream),
// each line bounded, in constant memory whatever the body's length.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { ProblemError } from '../errors.js';

/** Past the limit, a body up to this size is still read (and dropped), so that the client reads the 413. */
const DRAINED_BYTES = 16 * 1024 * 1024;

/**
 * The whole body, at most `maxBytes`. Past that `tooLarge` is thrown, once the rest has been read and
 * dropped — unless the body is larger still (or Content-Length says so at once): it is then left unread, and
 * the reply closes the connection (a client still sending may see it reset before the reply). Rejects if
 * the client goes.
 */
export function readBody(
  req: IncomingMessage,
  maxBytes: number,
  tooLarge: () => ProblemError,
): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > maxBytes && declared > DRAINED_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const done = (error?: Error) => {
      req.off('data', onData).off('end', onEnd).off('error', done).off('aborted', onAborted);
      if (error) {
        req.pause();
        reject(error);
      } else if (length > maxBytes) reject(tooLarge());
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length));
    };
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length > DRAINED_BYTES) done(tooLarge());
      else if (length <= maxBytes) chunks.push(chunk);
      else chunks.length = 0;
    };
    const onEnd = () => done();
    const onAborted = () => done(new Error('the client closed the connection'));
    req.on('data', onData).on('end', onEnd).on('error', done).on('aborted', onAborted);
  });
}

/** One line of a streamed body: its text, or the fact that it was too long to read. `number` counts from 1. */
export type BodyLine = { number: number; text: string } | { number: number; tooLong: true };

/** True when bytes [start, end) are all spaces, tabs or carriage returns. */
function isBlank(buffer: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = buffer[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}

/** Resolves once `body` has data to read, has ended, or has failed (then rejects). */
function readable(body: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      body.off('readable', onReady).off('end', onReady).off('error', done).off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const onClose = () =>
      done(body.readableEnded ? undefined : new Error('the client closed the connection'));
    body.on('readable', onReady).on('end', onReady).on('error', done).on('close', onClose);
  });
}

/**
 * The body's lines, in batches of at most `maxBatch`: a batch is given as soon as it is full, or as soon as
 * everything the body has delivered so far is split (lines do not wait for more). Blank lines are skipped but
 * counted in line numbers. A line longer than `maxLineBytes` is not kept: it is skipped to its end and given
 * as `tooLong`. Reads only as fast as the batches are taken, so memory stays bounded by what the socket
 * buffers, one line and one batch.
 */
export async function* lineBatches(
  body: Readable,
  maxLineBytes: number,
  maxBatch: number,
): AsyncGenerator<BodyLine[]> {
  let batch: BodyLine[] = [];
  let carry: Buffer[] = [];
  let carried = 0;
  let skipping = false;
  let number = 0;
  const line = (chunk: Buffer, start: number, end: number) => {
    number++;
    if (skipping || carried + end - start > maxLineBytes) {
      batch.push({ number, tooLong: true });
    } else if (carried === 0) {
      // Decoded from the chunk itself: no view of it made for each line.
      if (!isBlank(chunk, start, end)) batch.push({ number, text: chunk.toString('utf8', start, end) });
    } else {
      const whole = Buffer.concat([...carry, chunk.subarray(start, end)]);
      if (!isBlank(whole, 0, whole.length)) batch.push({ number, text: whole.toString('utf8') });
    }
    carry = [];
    carried = 0;
    skipping = false;
  };
  for (;;) {
    const chunk = body.read() as Buffer | null;
    if (chunk === null) {
      if (batch.length > 0) {
        yield batch;
        batch = [];
      }
      if (body.readableEnded) break;
      await readable(body);
      continue;
    }
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, start)) {
      line(chunk, start, newline);
      start = newline + 1;
      if (batch.length >= maxBatch) {
        yield batch;
        batch = [];
      }
    }
    if (start < chunk.length && !skipping) {
      carried += chunk.length - start;
      if (carried > maxLineBytes) {
        skipping = true;
        carry = [];
      } else carry.push(chunk.subarray(start));
    }
  }
  if (skipping || carried > 0) line(Buffer.alloc(0), 0, 0);
  if (batch.length > 0) yield batch;
}
