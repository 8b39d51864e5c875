// Which process wrote what: a writer's identity, so that an unfinished write of a dead one can be told apart
// from a write in progress.
import { readFileSync } from 'node:fs';

/** A process, named so that a later process reusing its pid is not mistaken for it. */
export interface WriterId {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux), or 0 where that cannot be read. */
  started: number;
}

/** The 22nd field of /proc/PID/stat: when the process started. The command (field 2) may hold spaces. */
function startTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[19]);
  } catch {
    return undefined;
  }
}

let self: WriterId | undefined;

/** This process. */
export function thisWriter(): WriterId {
  self ??= { pid: process.pid, started: startTime(process.pid) ?? 0 };
  return self;
}

/** True while the process is running: same pid, same start time where the system tells it. */
export function isAlive(writer: WriterId): boolean {
  if (writer.pid <= 0) return false;
  if (writer.pid === process.pid) return writer.started === thisWriter().started;
  try {
    process.kill(writer.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const started = startTime(writer.pid);
  return started === undefined || writer.started === 0 || started === writer.started;
}
