// A batch job yields the CPU to the servers beside it: `enrich import` runs at a lower scheduling priority
// (its threads start from the one that lowers it), so lookups keep their share of the cores while a
// refresh runs. On an idle machine this costs nothing; `--priority normal` keeps the shell's.
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How much lower than the shell's: nice +10, as background jobs commonly run. */
export const BACKGROUND_NICE = 10;

/**
 * Lowers this process's priority (nice value raised by BACKGROUND_NICE, at most 19); never fails. Linux
 * sets a priority per thread: every thread running now (V8's, libuv's) is lowered, and threads started
 * later inherit it from this one.
 */
export function runInBackground(): void {
  const nice = Math.min(19, getPriority() + BACKGROUND_NICE);
  let threads: number[] = [0];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // Not Linux: the process as a whole
  }
  for (const thread of threads) {
    try {
      setPriority(thread, nice);
    } catch {
      // Not permitted here (a sandbox, say), or the thread has ended: it runs at the priority it has.
    }
  }
}
