// With ENRICH_RECORD_RESPONSES=<dir>, records every response a test receives (inject(), fetch, the stream
// client) to one JSON-lines file per test file, so that a refactoring can be shown to change no byte.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import { watchInjections } from '../helpers/injections.js';
import { digestLarge, stableHeaders } from './normalise.js';

const dir = process.env.ENRICH_RECORD_RESPONSES;

/**
 * Where this test file's responses go, and how many requests each test has made so far (a response is
 * named by its test and its place): held once per process, however often this module is loaded.
 */
interface RecordingState {
  file?: string;
  counts: Map<string, number>;
}
const shared = globalThis as { enrichRecording?: RecordingState };
shared.enrichRecording ??= { counts: new Map() };
const state = shared.enrichRecording;
const { counts } = state;

function place(): { test: string; seq: number } {
  const test = expect.getState().currentTestName ?? '(hook)';
  const seq = (counts.get(test) ?? 0) + 1;
  counts.set(test, seq);
  return { test, seq };
}

function write(entry: object): void {
  if (state.file === undefined) {
    const testPath = expect.getState().testPath ?? 'unknown';
    mkdirSync(dir!, { recursive: true });
    state.file = join(dir!, `${relative(process.cwd(), testPath).replaceAll('/', '__')}.jsonl`);
  }
  appendFileSync(state.file, `${JSON.stringify(entry)}\n`);
}

/** A response as recorded: its place, what was asked, status, headers but the volatile ones, body. */
export interface Recorded {
  test: string;
  seq: number;
  request: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Returns the function that records the answer to the request being made now (its place is taken at
 * once, so that requests made together keep the order they were made in); undefined when not recording.
 */
export function recorder(
  method: string,
  url: string,
): ((status: number, headers: Record<string, unknown>, body: Buffer) => void) | undefined {
  if (dir === undefined) return undefined;
  const { test, seq } = place();
  const path = url.replace(/^https?:\/\/[^/]+/, '');
  return (status, headers, body) => {
    const entry: Recorded = {
      test,
      seq,
      request: `${method} ${path}`,
      status,
      headers: stableHeaders(headers),
      body: digestLarge(body, headers['x-request-id']),
    };
    write(entry);
  };
}

/** Wraps fetch: responses from this machine's servers are recorded, their body read from a copy. */
function recordFetches(): void {
  const fetched = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const record = recorder(method, url);
    const res = await fetched(input, init);
    if (record !== undefined) {
      const headers = Object.fromEntries(res.headers);
      res
        .clone()
        .arrayBuffer()
        .then(
          (body) => record(res.status, headers, Buffer.from(body)),
          () => record(res.status, headers, Buffer.from('(body not read: the connection ended)')),
        );
    }
    return res;
  };
}

const patched = globalThis as { enrichRecordingPatched?: boolean };
if (dir !== undefined && !patched.enrichRecordingPatched) {
  patched.enrichRecordingPatched = true;
  watchInjections('recording', (method, url) => {
    const record = recorder(method, url);
    return record && ((res) => record(res.statusCode, res.headers, res.rawPayload));
  });
  recordFetches();
}
