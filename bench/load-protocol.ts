// What passes between the benchmark and its load-generator process: the spec in, the result out.

/** What to send; the paths are cycled, each connection starting at a different place in the list. */
export interface LoadSpec {
  origin: string;
  /** GET unless told (the searches are POSTs, their parameters in the path's query). */
  method?: 'GET' | 'POST';
  paths: string[];
  /** POST these bodies (the i-th with the i-th path) instead of GETs. */
  bodies?: string[];
  headers: Record<string, string>;
  connections: number;
  duration: number;
  /** Seconds of unmeasured load first, to let the server's JIT and caches settle. */
  warmup: number;
  /** Requests per second over all connections; unlimited when absent. */
  overallRate?: number;
}

export interface LoadResult {
  seconds: number;
  /** 2xx responses per second: a lookup that did not answer with its record does not count. */
  rps: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** Latency of 2xx responses, from microsecond timings. */
  p50Ms: number;
  p99Ms: number;
  /** autocannon's own p99 (whole ms; corrected for coordinated omission when a rate is set). */
  autocannonP99Ms: number;
  /** CPU seconds the load generator used while measuring. */
  loadCpuSeconds: number;
}

/** The line the generator prints when warm-up ends and measurement starts. */
export const MEASURING = 'measuring';
