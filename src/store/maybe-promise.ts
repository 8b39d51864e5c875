// A value, or a promise of it: what a backend that can answer at once (SQLite) answers without a promise.

export type MaybePromise<T> = T | Promise<T>;

/** True for a promise: the answer is yet to come. */
export const isPromise = <T>(value: MaybePromise<T>): value is Promise<T> => value instanceof Promise;
