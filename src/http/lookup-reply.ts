// One lookup in flight on the lookup path: what it has learnt so far, and its reply, written in one go.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toProblem } from '../errors.js';
import type { LookupKey } from '../identifiers/params.js';
import type { QuotaTicket } from '../limits/quota.js';
import type { NameMatch } from '../lookup/name-match.js';
import type { LookupOperation } from '../lookup/operations.js';
import type { Selection } from '../lookup/selection.js';
import type { ApiKey } from '../store/keys.js';
import { StoreUnavailableError } from '../store/unavailable.js';
import type { Admittee } from './admission.js';
import type { CorsPolicy } from './cors.js';
import type { LookupInput } from './lookup-body.js';
import { PROBLEM_TYPE, problemDocument } from './problem.js';
import type { HeldReply } from './release.js';

/**
 * On every lookup response: records are personal data, kept by no cache (a client revalidates with
 * If-None-Match all the same), and no content is sniffed into something else.
 */
const SAFE_HEADERS = ['cache-control', 'private, no-store', 'x-content-type-options', 'nosniff'];

/** What a lookup needs of the path that serves it: the CORS policy, and to be told once its reply is sent. */
export interface LookupReplies {
  readonly cors: CorsPolicy | undefined;
  sent(lookup: Lookup): void;
}

/** One lookup in flight: what it has learnt so far, and its reply once decided. */
export class Lookup implements Admittee, HeldReply {
  keyId: string | undefined;
  key: ApiKey | undefined;
  ticket: QuotaTicket | null = null;
  keys: Array<[string, LookupKey]> = [];
  /** A match by name and company asked for besides (or instead of) the identifiers. */
  name: NameMatch | undefined = undefined;
  /** The fields asked for; none serves the record as stored. */
  selection: Selection | undefined = undefined;
  matched: string[] = [];
  /** Response headers in order, as a flat [name, value, …] list. */
  readonly headers: string[];
  /** How many entries of `headers` every reply keeps: the request id, safe headers, CORS when on. */
  private readonly baseHeaders: number;
  status = 200;
  body: Buffer | string = '';
  /** Set once the reply is decided: a later failure (writing it) must not decide it again. */
  decided = false;

  constructor(
    readonly path: LookupReplies,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly operation: LookupOperation,
    readonly route: string,
    readonly query: LookupInput,
    readonly id: string,
    readonly started: number,
  ) {
    this.headers = ['x-request-id', id, ...SAFE_HEADERS];
    const { cors } = path;
    if (cors !== undefined) this.headers.push(...cors.headersFor(req.headers.origin));
    this.baseHeaders = this.headers.length;
  }

  get keyed(): boolean {
    return this.keyId !== undefined;
  }

  header(name: string, value: string): void {
    this.headers.push(name, value);
  }

  /** Sends `503 unavailable` instead: its record could not be kept, so the answer is not disclosed. */
  refuse(): void {
    const problem = toProblem(new StoreUnavailableError());
    this.headers.length = this.baseHeaders; // only x-request-id, the safe headers (and CORS) stay
    for (const [name, value] of Object.entries(problem.headers)) this.headers.push(name, value);
    this.headers.push('content-type', PROBLEM_TYPE);
    this.status = problem.status;
    this.body = problemDocument(problem, this.id);
    this.send();
  }

  send(): void {
    const { res } = this;
    if (this.status !== 304) {
      const length = typeof this.body === 'string' ? Buffer.byteLength(this.body) : this.body.length;
      this.headers.push('content-length', String(length));
    }
    res.writeHead(this.status, this.headers);
    // A HEAD reply has the GET's headers and no body (Node's server drops it; inject() does not on Node 24).
    res.end(this.status === 304 || this.req.method === 'HEAD' ? undefined : this.body);
    this.path.sent(this);
  }
}
