// EnrichError: an API error response as a typed exception, carrying the problem document's members.
import type { Problem, ProblemCode, Scope } from './types.js';

/** The code of an error response that is not a problem document (a proxy's 502 page, say). */
export const UNEXPECTED_RESPONSE = 'unexpected_response';

/**
 * An error response from the API. `code` is the problem's stable code; the extension members are here
 * when the code carries them.
 * @example
 * try { await enrich.people({ work_email }) } catch (error) {
 *   if (error instanceof EnrichError && error.code === 'ambiguous_match') console.log(error.matches);
 * }
 */
export class EnrichError extends Error {
  override readonly name = 'EnrichError';
  readonly status: number;
  readonly code: ProblemCode | typeof UNEXPECTED_RESPONSE;
  /** The request's id, as the server logged it: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** The problem document, when the response was one. */
  readonly problem: Problem | undefined;
  /** Seconds the server asked to wait before retrying (`Retry-After`), if it did. */
  readonly retryAfter: number | undefined;
  /** `invalid_parameter`, `unknown_parameter`: the parameter at fault. */
  readonly parameter: string | undefined;
  /** `missing_identifier`, `unknown_parameter`: the parameters the operation accepts. */
  readonly accepted: string[] | undefined;
  /** `ambiguous_match`: for each parameter that matched, the ids of the records it matched. */
  readonly matches: Record<string, string[]> | undefined;
  /** `forbidden`: the scope the key lacks. */
  readonly requiredScope: Scope | undefined;

  constructor(status: number, problem: Problem | undefined, headers: Headers) {
    super(problem?.detail ?? `The server answered ${status} without a problem document.`);
    this.status = status;
    this.problem = problem;
    this.code = problem?.code ?? UNEXPECTED_RESPONSE;
    this.requestId = problem?.request_id ?? headers.get('x-request-id') ?? undefined;
    this.retryAfter = retryAfterSeconds(headers);
    this.parameter = problem?.parameter;
    this.accepted = problem?.accepted;
    this.matches = problem?.matches;
    this.requiredScope = problem?.required_scope;
  }
}

/** Whether a parsed error body is a problem document of this API. */
export function isProblem(body: unknown): body is Problem {
  const candidate = body as Partial<Problem> | null;
  return typeof candidate?.code === 'string' && typeof candidate.status === 'number';
}

/** `Retry-After` in seconds, given as seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  // An HTTP date names its day and month (`Wed, 21 Oct 2026 07:28:00 GMT`); Date.parse takes '-1' for a year.
  const at = /[a-z]{3}/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
