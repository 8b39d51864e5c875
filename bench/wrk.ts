// Load with wrk (Debian package `wrk`): a C load generator that leaves the server its core. One thread,
// each request the next of the spec's paths, results written by the script's done() as one JSON line.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LoadResult, LoadSpec } from './load-protocol.js';
import { cpuSeconds } from './system.js';

/** True when `wrk` can be run here. */
export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

export const WRK_MISSING =
  'wrk is not installed: `apt-get install wrk` (Debian) gives the C load generator the benchmark uses; falling back to autocannon, whose JavaScript client needs a core of its own';

/**
 * Lua for a script whose `rate` is set: with a rate above 0, `delay` holds each connection until the next
 * free slot of one schedule (LuaJIT's ffi reads the monotonic clock): an open-loop, fixed rate whatever the
 * latency, as long as enough connections are free (`connectionsFor`).
 */
export const PACING = `
if rate > 0 then
  local ffi = require("ffi")
  ffi.cdef[[
    typedef struct { long tv_sec; long tv_nsec; } paced_timespec;
    int clock_gettime(int clock, paced_timespec *now);
  ]]
  local clock = ffi.new("paced_timespec")
  local function now_ms()
    ffi.C.clock_gettime(1, clock) -- CLOCK_MONOTONIC
    return tonumber(clock.tv_sec) * 1000 + tonumber(clock.tv_nsec) / 1e6
  end
  local interval = 1000 / rate
  local slot = 0
  delay = function()
    local now = now_ms()
    if slot < now - 100 then slot = now end -- a stall is caught up for 100 ms at most
    slot = slot + interval
    return math.max(0, math.floor(slot - now))
  end
end
`;

/**
 * Connections for a run at `rate`: enough that responses taking `meanMs` on average (50 ms unless given)
 * still leave one free for every slot; slower than that, the rate falls short (and the report shows it).
 * Each connection costs the server too: a lookup at 80% of 17,000 a second would hold 680 of them at 50 ms.
 */
export const connectionsFor = (rate: number, atLeast: number, meanMs = 50) =>
  Math.max(atLeast, Math.ceil((rate * meanMs) / 1000));

/**
 * The script: cycles through the paths with `METHOD` (GET by default) or, given a file of bodies (one a line),
 * POSTs of the i-th body as JSON; paced to `RATE` requests a second when it is set (`PACING`).
 */
const SCRIPT = `
local paths = {}
for line in io.lines(os.getenv("ENRICH_PATHS")) do paths[#paths + 1] = line end
local bodies = nil
if os.getenv("ENRICH_BODIES") ~= "" then
  bodies = {}
  for line in io.lines(os.getenv("ENRICH_BODIES")) do bodies[#bodies + 1] = line end
end
local posted = {}
for name, value in pairs(wrk.headers) do posted[name] = value end
posted["Content-Type"] = "application/json"
local i = tonumber(os.getenv("ENRICH_OFFSET") or "0")
local rate = tonumber(os.getenv("ENRICH_RATE") or "0")
local method = os.getenv("ENRICH_METHOD") or "GET"
request = function()
  i = i + 1
  if i > #paths then i = 1 end
  if bodies then return wrk.format("POST", paths[i], posted, bodies[i]) end
  return wrk.format(method, paths[i])
end
${PACING}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"durationUs":%d,"status":%d,"errors":%d,"p50":%d,"p99":%d}\\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;

interface WrkRun {
  requests: number;
  durationUs: number;
  /** Responses with a status of 400 or more. */
  status: number;
  errors: number;
  p50: number;
  p99: number;
}

/** A wrk process: one thread, `connections` connections for `seconds`, driven by a Lua script. */
export interface WrkScriptRun {
  origin: string;
  script: string;
  /** What the script reads from its environment. */
  env: Record<string, string>;
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
}

/**
 * Runs wrk with a script whose done() writes one JSON line last; resolves with that line parsed and the
 * CPU seconds wrk used. `onStart` is told its pid once it runs.
 */
export function runWrkScript<T>(
  run: WrkScriptRun,
  onStart?: (pid: number) => void,
): Promise<{ output: T; cpuSeconds: number }> {
  const headers = Object.entries(run.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const args = ['-t1', `-c${run.connections}`, `-d${run.seconds}s`, '--timeout', '10s', ...headers];
  const child = spawn('wrk', [...args, '-s', run.script, `${run.origin}/`], {
    env: { ...process.env, ...run.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onStart?.(child.pid!);
  let out = '';
  let err = '';
  let cpu = 0;
  const sampler = setInterval(() => {
    cpu = Math.max(cpu, cpuSeconds(child.pid!) || 0);
  }, 100);
  child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (err += text));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      clearInterval(sampler);
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) return reject(new Error(`wrk exited ${code}: ${err || out}`));
      resolve({ output: JSON.parse(line) as T, cpuSeconds: cpu });
    });
  });
}

/** One run of the lookup script; `onStart` is told its pid once it runs (to sample its CPU). */
async function wrk(
  spec: LoadSpec,
  seconds: number,
  files: { script: string; paths: string; bodies: string },
  connections: number,
  rate: number,
  onStart?: (pid: number) => void,
): Promise<{ run: WrkRun; cpuSeconds: number }> {
  const { output, cpuSeconds } = await runWrkScript<WrkRun>(
    {
      origin: spec.origin,
      script: files.script,
      env: {
        ENRICH_PATHS: files.paths,
        ENRICH_BODIES: files.bodies,
        ENRICH_RATE: String(rate),
        ENRICH_METHOD: spec.method ?? 'GET',
      },
      connections,
      seconds,
      headers: spec.headers,
    },
    onStart,
  );
  return { run: output, cpuSeconds };
}

/**
 * Runs `spec` with wrk: the warm-up, then the measured run (`onMeasuring` is called as it starts). With
 * `overallRate`, both are paced by the script's schedule to that rate over `connectionsFor` it (an open load:
 * a slow answer does not lower the rate offered, as it would if each connection waited a fixed time).
 */
export async function runWrk(spec: LoadSpec, onMeasuring: () => void): Promise<LoadResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'enrich-wrk-'));
  try {
    const files = {
      script: path.join(dir, 'paths.lua'),
      paths: path.join(dir, 'paths.txt'),
      bodies: spec.bodies ? path.join(dir, 'bodies.txt') : '',
    };
    writeFileSync(files.script, SCRIPT);
    writeFileSync(files.paths, `${spec.paths.join('\n')}\n`);
    if (spec.bodies) writeFileSync(files.bodies, `${spec.bodies.join('\n')}\n`);
    const rate = spec.overallRate ?? 0;
    // Answers at 80% of the maximum take a few milliseconds: 10 ms on average leaves a wide margin.
    const connections = rate > 0 ? connectionsFor(rate, spec.connections, 10) : spec.connections;
    if (spec.warmup > 0) await wrk(spec, spec.warmup, files, connections, rate);
    onMeasuring();
    const { run, cpuSeconds } = await wrk(spec, spec.duration, files, connections, rate);
    const seconds = run.durationUs / 1e6;
    const ok = run.requests - run.status;
    return {
      seconds,
      rps: ok / seconds,
      ok,
      non2xx: run.status,
      errors: run.errors,
      p50Ms: run.p50 / 1000,
      p99Ms: run.p99 / 1000,
      autocannonP99Ms: Number.NaN,
      loadCpuSeconds: cpuSeconds,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
