// The part of autocannon 8's API the load generator uses (the package ships no types).
declare module 'autocannon' {
  export interface Request {
    path?: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  export interface Client {
    setRequests(requests: Request[]): void;
  }

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    overallRate?: number;
    headers?: Record<string, string>;
    requests?: Request[];
    setupClient?: (client: Client) => void;
  }

  export interface Histogram {
    average: number;
    p50: number;
    p99: number;
  }

  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    latency: Histogram;
    requests: Histogram & { total: number };
    statusCodeStats: Record<string, { count: number }>;
  }

  export interface Instance extends PromiseLike<Result> {
    on(
      event: 'response',
      listener: (client: Client, statusCode: number, resBytes: number, responseTime: number) => void,
    ): this;
    stop(): void;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
}
