// How long a failed webhook delivery waits before each retry (contract §8), unless configured otherwise.

/** Seconds before each retry: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; failed for good after the last. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];
