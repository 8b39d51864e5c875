// How a store marks an accounting journal segment as forgotten, the same on every backend.

/** How long a forgotten segment's mark is kept: far longer than any folder holds a run it has read. */
export const FORGOTTEN_FOR_MS = 86_400_000;

/**
 * A forgotten segment's offset: minus the time it was forgotten, so that old marks can be found and
 * dropped. Deleting the offset instead would let a folder that read the file before it went fold its
 * runs again from 0, counting them twice.
 */
export const forgottenMark = (now: number) => -now;
