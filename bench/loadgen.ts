// Runs one load test — wrk, or autocannon in a separate process (bench/load.ts) when wrk is missing — and
// samples the server's CPU while it measures.
import path from 'node:path';
import { spawnChild, waitForLine } from './children.js';
import { type LoadResult, type LoadSpec, MEASURING } from './load-protocol.js';
import { say } from './log.js';
import { machineBusySeconds, treeCpuSeconds } from './system.js';
import { runWrk, WRK_MISSING, wrkAvailable } from './wrk.js';

const LOAD_SCRIPT = path.join(import.meta.dirname, 'load.ts');

export interface Measured extends LoadResult {
  /**
   * Server CPU (all its processes, and its database's when that runs here) over the measured seconds, in
   * cores: 1.0 = one core busy throughout.
   */
  serverCores: number;
  /** The same for the load generator. */
  loadCores: number;
  /** The same for everything else on the machine: other people's work competing for the cores. */
  otherCores: number;
}

/**
 * One load run against `spec.origin`, served by the process trees of `serverPids` (the server, and a
 * database on this machine); time-boxed to its duration + 60 s.
 */
export async function runLoad(spec: LoadSpec, serverPids: readonly number[]): Promise<Measured> {
  return useWrk() ? runLoadWith(wrkRun(spec), serverPids) : runAutocannon(spec, serverPids);
}

let wrkChecked: boolean | undefined;

/** The load generator runs use: wrk when installed, else autocannon. */
export const loadGeneratorName = () => (useWrk() ? 'wrk' : 'autocannon');

/** wrk when installed (said once when it is not). */
function useWrk(): boolean {
  if (wrkChecked === undefined) {
    wrkChecked = wrkAvailable();
    if (!wrkChecked) say(WRK_MISSING);
  }
  return wrkChecked;
}

/** A wrk run, with the moment its measured part starts. */
function wrkRun(spec: LoadSpec) {
  let started: () => void = () => {};
  const measuring = new Promise<void>((resolve) => (started = resolve));
  return { measuring, result: runWrk(spec, () => started()) };
}

/** Samples the server's and the machine's CPU over the measured part of a run. */
async function runLoadWith(
  run: { measuring: Promise<void>; result: Promise<LoadResult> },
  serverPids: readonly number[],
): Promise<Measured> {
  await run.measuring;
  const serverCpuSeconds = () => serverPids.reduce((sum, pid) => sum + treeCpuSeconds(pid), 0);
  const serverBefore = serverCpuSeconds();
  const machineBefore = machineBusySeconds();
  const from = performance.now();
  const result = await run.result;
  const serverCpu = serverCpuSeconds() - serverBefore;
  const machineCpu = machineBusySeconds() - machineBefore;
  const wallSeconds = (performance.now() - from) / 1000;
  return {
    ...result,
    serverCores: serverCpu / result.seconds,
    loadCores: result.loadCpuSeconds / result.seconds,
    otherCores: Math.max(0, machineCpu - serverCpu - result.loadCpuSeconds) / wallSeconds,
  };
}

/** The fallback: autocannon in a process of its own (bench/load.ts). */
async function runAutocannon(spec: LoadSpec, serverPids: readonly number[]): Promise<Measured> {
  const child = spawnChild('load generator', process.execPath, ['--import', 'tsx', LOAD_SCRIPT]);
  try {
    let output = '';
    child.proc.stdout!.setEncoding('utf8').on('data', (text: string) => {
      output += text;
    });
    child.proc.stdin!.end(JSON.stringify(spec));
    const limitMs = (spec.warmup + spec.duration + 60) * 1000;
    await waitForLine(child, child.proc.stdout!, new RegExp(`^${MEASURING}$`), limitMs);
    const serverCpuSeconds = () => serverPids.reduce((sum, pid) => sum + treeCpuSeconds(pid), 0);
    const serverBefore = serverCpuSeconds();
    const machineBefore = machineBusySeconds();
    const from = performance.now();
    const timer = setTimeout(() => void child.stop(), limitMs);
    const code = await child.exited.finally(() => clearTimeout(timer));
    const serverCpu = serverCpuSeconds() - serverBefore;
    const machineCpu = machineBusySeconds() - machineBefore;
    const wallSeconds = (performance.now() - from) / 1000;
    if (code !== 0) throw new Error(`load generator exited with ${code}\n${child.stderrTail()}`);
    const result = JSON.parse(output.trim().split('\n').at(-1) ?? '') as LoadResult;
    return {
      ...result,
      serverCores: serverCpu / result.seconds,
      loadCores: result.loadCpuSeconds / result.seconds,
      otherCores: Math.max(0, machineCpu - serverCpu - result.loadCpuSeconds) / wallSeconds,
    };
  } finally {
    await child.stop();
  }
}
