// Child processes of a benchmark: spawned, time-boxed, and always stopped — on success, error or Ctrl-C.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { peakRssBytes } from './system.js';

export interface Child {
  name: string;
  proc: ChildProcess;
  pid: number;
  /** Resolves with the exit code (or signal name) once the process has gone. */
  exited: Promise<number | string>;
  /** Everything written to stderr so far, kept short, for error messages. */
  stderrTail(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

const running = new Set<Child>();
const TAIL_CHARS = 4000;

/** Starts a process and registers it so that `stopAll` (and the signal handlers) can end it. */
export function spawnChild(name: string, command: string, args: string[], opts: SpawnOptions = {}): Child {
  const proc = spawn(command, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (proc.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  let tail = '';
  proc.stderr!.setEncoding('utf8').on('data', (text: string) => {
    tail = (tail + text).slice(-TAIL_CHARS);
  });
  const exited = new Promise<number | string>((resolve) => {
    // 'close', not 'exit': by then stdout and stderr are drained too.
    proc.on('close', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    proc.on('error', () => resolve('spawn error'));
  });
  const child: Child = {
    name,
    proc,
    pid: proc.pid,
    exited,
    stderrTail: () => tail.trim(),
    async stop(graceMs = 5000) {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const force = setTimeout(() => proc.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(force);
      }
      running.delete(child);
    },
  };
  running.add(child);
  exited.then(() => running.delete(child));
  return child;
}

export interface Finished {
  stdout: string;
  stderr: string;
  /** The process's peak RSS (VmHWM), read every 100 ms while it ran; NaN when /proc cannot tell. */
  peakRssBytes: number;
}

/** How often a running child's peak RSS is read: VmHWM only rises, so the last reading misses at most this. */
const RSS_EVERY_MS = 100;

/** Runs a process to completion within `timeoutMs`; rejects (after killing it) on timeout or a non-zero exit. */
export async function runToEnd(
  name: string,
  command: string,
  args: string[],
  opts: SpawnOptions & { timeoutMs: number; input?: string },
): Promise<Finished> {
  const child = spawnChild(name, command, args, opts);
  let stdout = '';
  child.proc.stdout!.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.proc.stdin!.end(opts.input ?? '');
  let peakRss = Number.NaN;
  const readPeak = () => {
    const now = peakRssBytes(child.pid);
    if (Number.isFinite(now)) peakRss = Number.isFinite(peakRss) ? Math.max(peakRss, now) : now;
  };
  readPeak();
  const sampler = setInterval(readPeak, RSS_EVERY_MS);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void child.stop();
  }, opts.timeoutMs);
  const code = await child.exited.finally(() => {
    clearTimeout(timer);
    clearInterval(sampler);
  });
  if (timedOut) throw new Error(`${name}: timed out after ${Math.round(opts.timeoutMs / 1000)} s`);
  if (code !== 0) {
    const output = `${stdout.slice(-TAIL_CHARS)}\n${child.stderrTail()}`.trim();
    throw new Error(`${name}: exited with ${code}\n${output}`);
  }
  return { stdout, stderr: child.stderrTail(), peakRssBytes: peakRss };
}

/** Resolves with the first match of `pattern` in the stream's lines; rejects on timeout or early exit. */
export function waitForLine(child: Child, stream: Readable, pattern: RegExp, timeoutMs: number) {
  return new Promise<RegExpMatchArray>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(
      () => reject(new Error(`${child.name}: not ready after ${timeoutMs / 1000} s\n${child.stderrTail()}`)),
      timeoutMs,
    );
    const onData = (text: string) => {
      buffered += text;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const match = line.match(pattern);
        if (!match) continue;
        clearTimeout(timer);
        stream.off('data', onData);
        resolve(match);
        return;
      }
    };
    stream.setEncoding('utf8').on('data', onData);
    child.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${child.name}: exited with ${code} before it was ready\n${child.stderrTail()}`));
    });
  });
}

/** Stops every child still running, in parallel. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => child.stop()));
}

/** On Ctrl-C or SIGTERM: stop every child, then exit 130/143. A plain exit kills stragglers outright. */
export function stopChildrenOnSignals(cleanup: () => void = () => {}): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      process.stderr.write(`\nbench: ${signal}, stopping ${running.size} child process(es)\n`);
      stopAll().finally(() => {
        cleanup();
        process.exit(code);
      });
    });
  }
  process.once('exit', () => {
    for (const child of running) child.proc.kill('SIGKILL');
  });
}
