// Compares two recordings of the test suites' responses (record.ts), test by test and request by request,
// and prints every difference: `node --import tsx test/recording/compare.ts BEFORE AFTER [BEFORE_AGAIN]`.
// Values drawn afresh on every run (tokens, key ids, timestamps, generated request ids) are masked first.
// Given a second recording of the unchanged code, the responses that differ between the two (timings in
// /metrics, a bucket's refill between requests) are compared with their numbers masked too.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Recorded } from './record.js';

/** Values a run draws afresh: masked, so that only what the code decides is compared. */
const RANDOM: Array<[RegExp, string]> = [
  [/enr_[A-Za-z0-9_]+/g, '<token>'],
  [/\bkey_[A-Za-z0-9]+/g, '<key-id>'],
  [/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<timestamp>'],
  // What is left in a bucket, and how soon it is full, depend on the clock between requests (real here;
  // test/routes/keyed-refusals.test.ts checks every figure on a clock that stands still).
  [/r=\d+;t=\d+/g, 'r=<n>;t=<n>'],
  // Responses Fastify answers before its hooks (a malformed URL) carry no X-Request-Id to mask them by.
  [/\\"request_id\\":\\"[a-z0-9]{6}-[a-z0-9]+\\"/g, '\\"request_id\\":\\"<generated>\\"'],
];
/**
 * How a response that varies from run to run of the same code is compared: its numbers masked, and a body
 * recorded by its digest or as base64 (compressed) named only by its kind.
 */
const numbersMasked = (text: string) =>
  text.replace(/"body": "(sha256|base64):[^"]*"/, '"body": "$1"').replace(/\d+/g, 'N');

const mask = (text: string) => RANDOM.reduce((masked, [pattern, by]) => masked.replace(pattern, by), text);

/**
 * A response as compared: /metrics without the process's own gauges (memory, CPU, handles), which no two
 * runs share; and the length of a body that holds a generated request id, whose length grows with the
 * number of requests before it, left to the body's own comparison.
 */
function comparable(response: Omit<Recorded, 'test' | 'seq'>): object {
  if (response.body.includes('<request-id>')) {
    return { ...response, headers: { ...response.headers, 'content-length': '-' } };
  }
  if (!response.request.startsWith('GET /metrics')) return response;
  const lines = response.body.split('\n').filter((line) => !/^(# \w+ )?enrich_(process|nodejs)_/.test(line));
  return { ...response, headers: { ...response.headers, 'content-length': '-' }, body: lines.join('\n') };
}

/** Every response of a recording, by file, test and place. */
function load(dir: string): Map<string, string> {
  const responses = new Map<string, string>();
  for (const file of readdirSync(dir).sort()) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (line === '') continue;
      const { test, seq, ...response } = JSON.parse(line) as Recorded;
      responses.set(`${file} › ${test} #${seq}`, mask(JSON.stringify(comparable(response), null, 1)));
    }
  }
  return responses;
}

function compare(beforeDir: string, afterDir: string, againDir: string | undefined): number {
  const before = load(beforeDir);
  const after = load(afterDir);
  const again = againDir === undefined ? before : load(againDir);
  let differences = 0;
  let noisy = 0;
  for (const [place, response] of before) {
    const other = after.get(place);
    if (other === response) continue;
    const varies = again.get(place) !== response;
    if (varies) noisy++;
    if (varies && other !== undefined && numbersMasked(other) === numbersMasked(response)) continue;
    differences++;
    console.log(`\n=== ${place}\n--- before\n${response}\n+++ after\n${other ?? '(no such request)'}`);
  }
  // Requests only the second recording made: tests added since, not answers changed.
  const added = [...after.keys()].filter((place) => !before.has(place)).length;
  console.log(
    `\n${before.size} responses before, ${after.size} after (${added} from tests added); ${noisy} vary from ` +
      `run to run (compared with their numbers masked); ${differences} different`,
  );
  return differences;
}

const [beforeDir, afterDir, againDir] = process.argv.slice(2);
if (beforeDir === undefined || afterDir === undefined) {
  console.error('usage: compare.ts BEFORE AFTER [BEFORE_AGAIN]');
  process.exit(2);
}
process.exit(compare(beforeDir, afterDir, againDir) === 0 ? 0 : 1);
