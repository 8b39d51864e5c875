// An importer's heaps grow by half of what they hold rather than by V8's default multiple.
import { setFlagsFromString } from 'node:v8';

/**
 * Each mark-compact lets a heap grow to this much more than it kept (V8's default is up to about 4×).
 * An importer holds little (a batch or two per thread) but allocates it again for every batch: at V8's
 * default its three heaps grew to 300–450 MB each while keeping 55–95 MB. Found no slower (BENCHMARKS.md,
 * issue 24).
 */
const GROWING_PERCENT = 50;

/**
 * Makes this process's heaps, and those of the threads it starts, grow by at most GROWING_PERCENT after a
 * collection. V8 reads the flag at each collection, so setting it once V8 runs takes effect (Node's docs
 * warn that a flag set late may not: this one was measured to).
 */
export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${GROWING_PERCENT}`);
}
