// What the benchmark reads from the machine: CPU time and peak RSS of a process tree, the machine, free disk.
import { readdirSync, readFileSync, statfsSync } from 'node:fs';
import os from 'node:os';

const TICKS_PER_SECOND = 100; // USER_HZ; 100 on every Linux this runs on

/** User + system CPU seconds a process has used so far (from /proc/PID/stat), or NaN off Linux. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** Peak resident set size of a process in bytes (VmHWM), or NaN when /proc cannot tell. */
export function peakRssBytes(pid: number): number {
  try {
    const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmHWM:\s+(\d+) kB/m);
    return match ? Number(match[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Resident memory now, split: anonymous (the process's own heap and stacks) and file-backed (mapped files). */
export interface RssParts {
  anonBytes: number;
  fileBytes: number;
}

/** RssAnon and RssFile of a process (from /proc/PID/status), NaN when /proc cannot tell. */
export function rssParts(pid: number): RssParts {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
    return { anonBytes: kb('RssAnon'), fileBytes: kb('RssFile') };
  } catch {
    return { anonBytes: Number.NaN, fileBytes: Number.NaN };
  }
}

/** A process's parent (from /proc/PID/stat); throws when the process is not (or no longer) here. */
export function parentPid(pid: number | string): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** The process and all its descendants (a clustered server's workers), from the parent links in /proc. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = parentPid(entry);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone while we looked
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** CPU seconds used so far by a process and its live descendants. */
export const treeCpuSeconds = (pid: number) => sum(processTree(pid).map(cpuSeconds));

/** Sum of the peak RSS of a process and its live descendants: an upper bound on the tree's peak. */
export const treePeakRssBytes = (pid: number) => sum(processTree(pid).map(peakRssBytes));

/**
 * RssAnon and RssFile summed over a process and its live descendants. File pages shared by several
 * processes (the serving index's, mapped by every worker) are counted once per process.
 */
export function treeRss(pid: number): RssParts {
  const parts = processTree(pid).map(rssParts);
  return { anonBytes: sum(parts.map((p) => p.anonBytes)), fileBytes: sum(parts.map((p) => p.fileBytes)) };
}

/** CPU seconds the whole machine has spent busy (all cores, all processes) since boot, from /proc/stat. */
export function machineBusySeconds(): number {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/**
 * Waits, up to `maxSeconds`, for a second in which the whole machine used under `cores` of CPU;
 * resolves with the seconds waited. Between load runs our own processes are idle, so this is everyone else.
 */
export async function waitForQuiet(maxSeconds: number, cores = 0.25): Promise<number> {
  const started = performance.now();
  for (;;) {
    const before = machineBusySeconds();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const waited = (performance.now() - started) / 1000;
    if (machineBusySeconds() - before < cores || waited >= maxSeconds) return waited;
  }
}

/** Bytes free for an unprivileged user on the file system holding `path`. */
export function freeDiskBytes(path: string): number {
  const stats = statfsSync(path);
  return stats.bavail * stats.bsize;
}

function cpuModel(): string {
  try {
    const match = readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.+)$/m);
    if (match) return match[1]!.trim();
  } catch {
    // not Linux: fall through to what Node reports
  }
  return os.cpus()[0]?.model ?? 'unknown CPU';
}

export interface Machine {
  cores: number;
  memory: string;
  cpu: string;
  os: string;
  node: string;
}

export function describeMachine(): Machine {
  return {
    cores: os.availableParallelism(),
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    cpu: cpuModel(),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
  };
}
