// Issue 24's stream target: 1,000,000 `id` lookups sent as one NDJSON bulk, its rate and the server's memory.
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { MAX_STREAM_LINES } from '../src/lookup/bulk-request.js';
import { build, lastBuild } from './build.js';
import { stopChildrenOnSignals } from './children.js';
import { createBenchKey, serve } from './enrich.js';
import { cores, int, mib } from './format.js';
import { say } from './log.js';
import { FLAT_MEMORY_GROWTH } from './match-run.js';
import { medianOf } from './stats.js';
import { treeCpuSeconds, treeRss } from './system.js';

export interface StreamRun {
  /** Items sent. */
  items: number;
  /** Result lines received. */
  answered: number;
  /** Results that found a record (`"status":"matched"`). */
  found: number;
  /** Wall time from the request's start to the last response byte. */
  seconds: number;
  itemsPerSecond: number;
  /** CPU seconds of the server's process tree over the run ÷ `seconds`. */
  serverCores: number;
  /** The server tree's RssAnon before the stream. */
  serverRssAnonBeforeBytes: number;
  /** The server tree's RssAnon once a tenth of the items were answered. */
  serverRssAnonUnderWayBytes: number;
  /** The highest RssAnon of the server tree sampled during the stream. */
  serverRssAnonPeakBytes: number;
  /** This process's highest RSS sampled during the stream: the client is constant-memory too. */
  clientPeakRssBytes?: number;
}

/** The bar for the stream's rate. */
export const TARGET_ITEMS_PER_SECOND = 150_000;
/**
 * Constant memory, judged as `enrich match` is (bench/match-run.ts): the server's RssAnon at its peak over
 * its level once the stream is under way (a tenth of its items answered), when V8's young generation and
 * the stream's buffers have filled. Holding the answers would take over 1 GB for 1,000,000 records.
 */
const UNDER_WAY_SHARE = 0.1;

const ROUTE = '/v1/people/bulk';
/** Lines per chunk of the body: large enough that writes are few, small enough to be nothing in memory. */
const CHUNK_LINES = 500;
const SAMPLE_EVERY_MS = 100;
/** A result line starts so, since no item sends a `ref` (which would come first). */
const MATCHED_HEAD = '{"status":"matched"';
/** The line that ends a stream which could not go on (413, 503, 401, …). */
const ERROR_HEAD = '{"status":"error"';
const HEAD_CHARS = MATCHED_HEAD.length;
const ERROR_CHARS = 2000;

/** The body: `items` lines `{"params":{"id":…}}`, cycling through `ids`, made as they are read. */
function* ndjsonBody(ids: readonly string[], items: number): Generator<Buffer> {
  const lines = ids.map((id) => `${JSON.stringify({ params: { id } })}\n`);
  for (let sent = 0; sent < items; sent += CHUNK_LINES) {
    let chunk = '';
    for (let i = sent; i < Math.min(items, sent + CHUNK_LINES); i++) chunk += lines[i % lines.length];
    yield Buffer.from(chunk);
  }
}

/** Counts the answer's lines as they arrive, keeping only the first bytes of the current one. */
class ResultLines {
  answered = 0;
  found = 0;
  /** The stream's error line, when it ended with one. */
  failure: string | undefined;
  /** Why the connection broke off, when it did. */
  broken: string | undefined;
  /** When the last byte came. */
  endedAt = Number.NaN;
  private head = '';

  /** The start of a last line left unfinished ('' when the answer ended with a newline). */
  get unfinished(): string {
    return this.head;
  }

  /** How much of the current line to keep: enough to classify it, or all of an error line. */
  private room(): number {
    return (this.head.startsWith(ERROR_HEAD) ? ERROR_CHARS : HEAD_CHARS) - this.head.length;
  }

  take(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      const newline = chunk.indexOf(10, at);
      const end = newline === -1 ? chunk.length : newline;
      for (let from = at; from < end && this.room() > 0; ) {
        const to = Math.min(end, from + this.room());
        this.head += chunk.toString('latin1', from, to);
        from = to;
      }
      if (newline === -1) return;
      this.line();
      at = newline + 1;
    }
  }

  private line(): void {
    if (this.head.startsWith(ERROR_HEAD)) this.failure = this.head;
    else {
      this.answered++;
      if (this.head === MATCHED_HEAD) this.found++;
    }
    this.head = '';
  }
}

/**
 * Sends the stream and counts its answer as it comes, however it ends; rejects on a non-2xx status (with the
 * body's start) or a connection that fails before any answer.
 */
function post(origin: string, token: string, body: Readable, lines: ResultLines): Promise<ResultLines> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(ROUTE, origin), {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
    });
    let answering = false;
    req.once('error', (error) => (answering ? undefined : reject(error)));
    // pipe() waits for 'drain' whenever the socket's buffer is full. A server that stops reading once it has
    // ended the stream (an error line) breaks the upload: the answer says why.
    pipeline(body, req).catch((error: unknown) => (answering ? undefined : reject(error)));
    req.once('response', (res) => {
      answering = true;
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        let start = '';
        res.setEncoding('utf8').on('data', (text: string) => {
          start = (start + text).slice(0, 500);
        });
        res.once('close', () => {
          reject(new Error(`POST ${ROUTE} (NDJSON stream) answered ${status}: ${start}`));
          req.destroy();
        });
        return;
      }
      res.on('data', (chunk: Buffer) => lines.take(chunk));
      res.once('end', () => {
        lines.endedAt = performance.now();
      });
      res.once('error', (error) => {
        lines.broken = error.message;
      });
      res.once('close', () => {
        if (Number.isNaN(lines.endedAt)) lines.endedAt = performance.now();
        resolve(lines);
      });
    });
  });
}

/**
 * Samples, every 100 ms, the server tree's RssAnon and this process's RSS, keeping the highest of each, and
 * the server's RssAnon at the first sample after `underWay()` turns true.
 */
function samplePeaks(pid: number, before: number, underWay: () => boolean) {
  const peaks = { server: before, client: process.memoryUsage.rss(), underWay: Number.NaN };
  const sample = () => {
    const anon = treeRss(pid).anonBytes;
    if (Number.isFinite(anon)) peaks.server = Math.max(peaks.server, anon);
    if (Number.isNaN(peaks.underWay) && underWay()) peaks.underWay = anon;
    peaks.client = Math.max(peaks.client, process.memoryUsage.rss());
  };
  const timer = setInterval(sample, SAMPLE_EVERY_MS);
  return {
    peaks,
    stop: () => {
      clearInterval(timer);
      sample();
    },
  };
}

/**
 * Sends `items` lookups by `id` (cycling through `ids`) to POST /v1/people/bulk as one NDJSON stream, reading
 * the answer as it comes, in constant memory on both sides; rejects unless every item is answered.
 *
 * @example
 * const run = await measureStream({ origin, pid: enrich.child.pid }, token, sample.personIds.map((p) => p.id));
 */
export async function measureStream(
  server: { origin: string; pid: number },
  token: string,
  ids: readonly string[],
  items = 1_000_000,
): Promise<StreamRun> {
  if (ids.length === 0) throw new Error('measureStream: no ids to look up');
  if (!Number.isInteger(items) || items < 1 || items > MAX_STREAM_LINES)
    throw new Error(`measureStream: a stream holds 1 to ${int(MAX_STREAM_LINES)} items, not ${items}`);
  const rssBefore = treeRss(server.pid).anonBytes;
  const cpuBefore = treeCpuSeconds(server.pid);
  const answer = new ResultLines();
  const sampler = samplePeaks(server.pid, rssBefore, () => answer.answered >= items * UNDER_WAY_SHARE);
  const started = performance.now();
  const body = Readable.from(ndjsonBody(ids, items));
  const lines = await post(server.origin, token, body, answer).finally(sampler.stop);
  const seconds = (lines.endedAt - started) / 1000;
  const serverCores = (treeCpuSeconds(server.pid) - cpuBefore) / seconds;
  const { failure, broken, unfinished, answered } = lines;
  if (failure !== undefined) throw new Error(`the stream ended early: ${failure}`);
  if (broken !== undefined) throw new Error(`the answer broke off after ${int(answered)} lines: ${broken}`);
  if (unfinished !== '') throw new Error(`the answer ended mid-line: ${unfinished}`);
  if (answered !== items) throw new Error(`the stream answered ${int(answered)} of ${int(items)} items`);
  return {
    items,
    answered: lines.answered,
    found: lines.found,
    seconds,
    itemsPerSecond: items / seconds,
    serverCores,
    serverRssAnonBeforeBytes: rssBefore,
    serverRssAnonUnderWayBytes: sampler.peaks.underWay,
    serverRssAnonPeakBytes: sampler.peaks.server,
    clientPeakRssBytes: sampler.peaks.client,
  };
}

/** `runs` streams of 1,000,000 lookups (100,000 under --quick), one after another, against a running server. */
export async function measureStreams(
  server: { origin: string; pid: number },
  token: string,
  ids: readonly string[],
  load: { runs: number; quick: boolean },
): Promise<StreamRun[]> {
  const items = load.quick ? 100_000 : MAX_STREAM_LINES;
  const runs: StreamRun[] = [];
  for (let run = 1; run <= load.runs; run++) {
    const measured = await measureStream(server, token, ids, items);
    runs.push(measured);
    say(
      `stream ${run}/${load.runs}: ${int(measured.itemsPerSecond)} items/s, server ` +
        `${cores(measured.serverCores)} cores, RssAnon ${mib(measured.serverRssAnonUnderWayBytes)} under way, ` +
        `${mib(measured.serverRssAnonPeakBytes)} at its peak`,
    );
  }
  return runs;
}

const growth = (run: StreamRun) => run.serverRssAnonPeakBytes / run.serverRssAnonUnderWayBytes - 1;

/** The verdict row's figures: the runs' median rate, and the largest RssAnon growth of any run. */
export function streamRow(runs: StreamRun[]): { measured: string; met: boolean } {
  if (runs.length === 0) return { measured: '–', met: false };
  const rate = medianOf(runs, (r) => r.itemsPerSecond);
  const worst = runs.reduce((a, b) => (growth(b) > growth(a) ? b : a));
  const measured =
    `${int(rate)} items/s of ${int(medianOf(runs, (r) => r.items))} in one stream ` +
    `(${cores(medianOf(runs, (r) => r.serverCores))} server cores); server RssAnon ` +
    `${mib(worst.serverRssAnonBeforeBytes)} before, ${mib(worst.serverRssAnonUnderWayBytes)} under way, ` +
    `${mib(worst.serverRssAnonPeakBytes)} at its peak (+${(growth(worst) * 100).toFixed(0)}%, bound ` +
    `+${FLAT_MEMORY_GROWTH * 100}%)`;
  const flat = Number.isFinite(growth(worst)) && growth(worst) <= FLAT_MEMORY_GROWTH;
  return { measured, met: rate >= TARGET_ITEMS_PER_SECOND && flat };
}

/** People ids drawn at random from a SQLite store, read before the server opens it. */
function storeIds(db: string, count: number): string[] {
  const store = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const rows = store.prepare('SELECT id FROM people ORDER BY random() LIMIT ?').all(count);
    return (rows as Array<{ id: string }>).map((row) => row.id);
  } finally {
    store.close();
  }
}

/**
 * `node --import tsx bench/stream.ts DB_PATH [ITEMS] [--skip-build]`: builds the working tree as every
 * benchmark does (or reuses the last build), serves the store, and prints one stream's figures as JSON.
 */
async function main(argv: string[]): Promise<void> {
  const [db, itemsArg = `${MAX_STREAM_LINES}`] = argv.filter((arg) => arg !== '--skip-build');
  if (!db) throw new Error('usage: node --import tsx bench/stream.ts DB_PATH [ITEMS] [--skip-build]');
  stopChildrenOnSignals();
  say(`code under test: ${argv.includes('--skip-build') ? lastBuild() : await build()}`);
  const store = path.resolve(db);
  // As the method draws its lookups: uniformly from 50,000 people.
  const ids = storeIds(store, 50_000);
  const token = await createBenchKey(store);
  const enrich = await serve(store);
  try {
    const run = await measureStream(
      { origin: enrich.origin, pid: enrich.child.pid },
      token,
      ids,
      Number(itemsArg),
    );
    process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
  } finally {
    await enrich.child.stop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : error}\n`);
    process.exitCode = 1;
  });
}
