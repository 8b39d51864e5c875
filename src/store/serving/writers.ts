// Which process wrote what: a writer's identity, so that an unfinished write of a dead one can be told apart
// from a write in progress.
import { readFileSync } from 'node:fs';

/** A process, named so that a later process reusing its pid is not mistaken for it. */
export interface WriterId {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux), or 0 where that cannot be read. */
  started: number;
}

/**
 * From /proc/PID/stat: the 22nd field, when the process started, and the 3rd, its state (`Z`: a zombie,
 * dead but not yet reaped by its parent). The command (field 2) may hold spaces.
 */
function processStat(pid: number): { started: number; zombie: boolean } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { started: Number(fields[19]), zombie: fields[0] === 'Z' || fields[0] === 'X' };
  } catch {
    return undefined;
  }
}

let self: WriterId | undefined;

/** This process. */
export function thisWriter(): WriterId {
  self ??= { pid: process.pid, started: processStat(process.pid)?.started ?? 0 };
  return self;
}

/** True while the process is running (not a zombie): same pid, same start time where the system tells it. */
export function isAlive(writer: WriterId): boolean {
  if (writer.pid <= 0) return false;
  if (writer.pid === process.pid) return writer.started === thisWriter().started;
  try {
    process.kill(writer.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = processStat(writer.pid);
  if (stat === undefined) return true; // no /proc: the signal said it runs
  return !stat.zombie && (writer.started === 0 || stat.started === writer.started);
}
