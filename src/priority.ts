// Background work yields the CPU to the lookups beside it: `enrich import` runs at a lower scheduling
// priority (so lookups keep their share of the cores while a refresh runs), and so does a server's webhook
// dispatch thread. On an idle machine this costs nothing.
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * How much lower than the shell's: to nice 19, the lowest. Linux shares a core by weights: 1,024 at nice 0,
 * 110 at +10, 15 at +19. A refresh's three busy threads at +10 on the lookups' core took a quarter of it;
 * at +19, about 4%. On an idle core it makes no difference.
 */
export const BACKGROUND_NICE = 19;

const lowered = () => Math.min(19, getPriority() + BACKGROUND_NICE);

/** Sets a thread's nice value (0: the calling one); never fails. */
function lower(thread: number, nice: number): void {
  try {
    setPriority(thread, nice);
  } catch {
    // Not permitted here (a sandbox, say), or the thread has ended: it runs at the priority it has.
  }
}

/**
 * Lowers the calling thread's priority by BACKGROUND_NICE (on Linux a priority is a thread's; threads it
 * starts after inherit it); never fails.
 */
export function lowerThisThread(): void {
  lower(0, lowered());
}

/**
 * Lowers this process's priority (nice value raised by BACKGROUND_NICE, at most 19); never fails. Linux
 * sets a priority per thread: every thread running now (V8's, libuv's) is lowered, and threads started
 * later inherit it from this one.
 */
export function runInBackground(): void {
  const nice = lowered();
  let threads: number[] = [0];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // Not Linux: the process as a whole
  }
  for (const thread of threads) lower(thread, nice);
}
