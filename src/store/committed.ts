// A write that failed after the store of record had committed it (the serving index could not follow, on a
// full disk say; it catches up from the store later): what was committed travels with the error, so that an
// import counts the records it did store.

/** Marks `error` with what the store of record committed before it; returns it, to be rethrown. */
export function withCommitted(error: unknown, committed: unknown): unknown {
  if (error !== null && typeof error === 'object') Object.assign(error, { committed });
  return error;
}

/** What a failed write had committed, when it says. */
export const committedOf = (error: unknown): unknown =>
  error !== null && typeof error === 'object' ? (error as { committed?: unknown }).committed : undefined;
