// The common substitute: json-server 0.17 holding the first N people of the same data set, looked up by id.
import { createWriteStream } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { type Child, spawnChild } from './children.js';
import { forEachLine } from './lines.js';
import { type Measured, runLoad } from './loadgen.js';
import type { LoadOptions } from './options.js';
import { treePeakRssBytes, waitForQuiet } from './system.js';

const BIN = path.resolve(import.meta.dirname, '..', 'node_modules', 'json-server', 'lib', 'cli', 'bin.js');

export interface JsonServerRun {
  size: number;
  /** Why it could not serve this many records (then `runs` is empty). */
  failure?: string;
  startSeconds: number;
  runs: Measured[];
  peakRssBytes: number;
}

/** db.json = { "people": [ the first `size` lines ] }, copied as text without parsing. */
async function writeDb(peopleFile: string, size: number, file: string): Promise<void> {
  const out = createWriteStream(file);
  out.write('{"people":[\n');
  let written = 0;
  await forEachLine(peopleFile, (line) => {
    if (written >= size) return;
    out.write(written++ === 0 ? line : `,\n${line}`);
  });
  out.end('\n]}\n');
  await finished(out);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Polls one lookup until it answers 200; json-server reads and parses the whole file first. */
async function untilServing(child: Child, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.proc.exitCode !== null)
      throw new Error(`exited with ${child.proc.exitCode}: ${child.stderrTail()}`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(5000) })).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`not serving after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Serves the first `size` people with json-server and runs the id lookups among them `load.runs` times.
 * @example await measureJsonServer(files.people, 10_000, ids, dir, options)
 */
export async function measureJsonServer(
  peopleFile: string,
  size: number,
  idsInRange: string[],
  dir: string,
  load: LoadOptions,
): Promise<JsonServerRun> {
  const db = path.join(dir, `json-server-${size}.json`);
  await writeDb(peopleFile, size, db);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const paths = idsInRange.map((id) => `/people?id=${encodeURIComponent(id)}`);
  const started = performance.now();
  const args = [BIN, db, '--host', '127.0.0.1', '--port', `${port}`, '--quiet', '--read-only'];
  const child = spawnChild('json-server', process.execPath, args, { cwd: dir });
  child.proc.stdout!.resume();
  const result: JsonServerRun = { size, startSeconds: Number.NaN, runs: [], peakRssBytes: Number.NaN };
  try {
    await untilServing(child, `${origin}${paths[0]}`, 180_000);
    result.startSeconds = (performance.now() - started) / 1000;
    const { connections, duration, warmup } = load;
    for (let run = 0; run < load.runs; run++) {
      if (load.waitQuiet > 0) await waitForQuiet(load.waitQuiet);
      result.runs.push(
        await runLoad({ connections, duration, warmup, origin, paths, headers: {} }, [child.pid]),
      );
    }
    result.peakRssBytes = treePeakRssBytes(child.pid);
  } catch (error) {
    result.failure = (error as Error).message.split('\n')[0];
  } finally {
    await child.stop();
  }
  return result;
}
