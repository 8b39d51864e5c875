// What `enrich lookup` makes of its command line and prints of an answer: the query its options give, the
// answer as text or as the bytes served, and an exit code per outcome. Pure: the command only runs them.

import { UsageError } from './options.js';
import { printable } from './printable.js';

/** A lookup's answer, local or from a server: the status and body as served, and the headers shown. */
export interface LookupReply {
  status: number;
  /** The record's bytes (or its fields) on a 200, the problem document otherwise. */
  body: string;
  /** `Enrich-Matched-By`, on a 200. */
  matchedBy?: string | undefined;
  /** `Enrich-Match-Likelihood`, on a 200 matched by name and company. */
  likelihood?: string | undefined;
}

/** The exit codes of `enrich lookup`, one per outcome (the README lists them). */
export const LOOKUP_EXIT = {
  found: 0,
  /** The lookup could not be made: no store, a server unreachable, failing or answering something else. */
  failed: 1,
  /** 400 (and 413, 415): the parameters are not a lookup. */
  invalid: 2,
  notFound: 3,
  ambiguous: 4,
  /** The server refused the token or its limits: 401, 402, 403, 429. */
  refused: 5,
} as const;

const EXIT_BY_STATUS: Record<number, number> = {
  200: LOOKUP_EXIT.found,
  400: LOOKUP_EXIT.invalid,
  413: LOOKUP_EXIT.invalid,
  415: LOOKUP_EXIT.invalid,
  404: LOOKUP_EXIT.notFound,
  409: LOOKUP_EXIT.ambiguous,
  401: LOOKUP_EXIT.refused,
  402: LOOKUP_EXIT.refused,
  403: LOOKUP_EXIT.refused,
  429: LOOKUP_EXIT.refused,
};

interface Problem {
  detail?: unknown;
  title?: unknown;
  code?: unknown;
  matches?: Record<string, string[]>;
}

function problemOf(body: string): Problem | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed !== null && typeof parsed === 'object' && 'status' in parsed
      ? (parsed as Problem)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The exit code of an answer: by its status when it is the service's own (a problem document), else 1. */
export function lookupExitCode(reply: LookupReply): number {
  if (reply.status === 200) return LOOKUP_EXIT.found;
  if (problemOf(reply.body) === undefined) return LOOKUP_EXIT.failed;
  return EXIT_BY_STATUS[reply.status] ?? LOOKUP_EXIT.failed;
}

/** What to print: `--json` writes the body as served; otherwise the record indented, or why there is none. */
export function renderLookup(
  reply: LookupReply,
  json: boolean,
  command: string,
): { stdout: string; stderr: string } {
  if (json) return { stdout: `${reply.body}\n`, stderr: '' };
  if (reply.status === 200) {
    const likelihood = reply.likelihood ? ` (likelihood ${reply.likelihood} of 10)` : '';
    return {
      stdout: `${JSON.stringify(JSON.parse(reply.body), null, 2)}\n`,
      stderr: `Matched by ${reply.matchedBy ?? '?'}${likelihood}\n`,
    };
  }
  const problem = problemOf(reply.body);
  if (problem === undefined) {
    const text = printable(reply.body.slice(0, 200).trim());
    return { stdout: '', stderr: `enrich: the server answered ${reply.status}${text ? `: ${text}` : ''}\n` };
  }
  const lines = [`enrich: ${String(problem.detail ?? problem.title ?? reply.status)}`];
  for (const [param, ids] of Object.entries(problem.matches ?? {}))
    lines.push(`  ${param}: ${ids.join(', ')}`);
  if (problem.code === 'unknown_parameter' || problem.code === 'missing_identifier')
    lines.push(`Run "${command} --help" for its options (--ln-slug for ln_slug, and so on).`);
  return { stdout: '', stderr: `${lines.join('\n')}\n` };
}

/** An option's value: one string, or every value of an option given more than once (the API's 400). */
export type OptionValue = string | string[];

/** A repeatable option's parser: a second value makes a list, as a repeated query parameter does. */
export const repeatable = (value: string, previous: OptionValue | undefined): OptionValue =>
  previous === undefined ? value : [...[previous].flat(), value];

/** `--work-email` → `work_email`: the API's parameter an option names. */
export const paramOfOption = (flag: string) => flag.replace(/^-+/, '').replaceAll('-', '_');

/**
 * The parameters of the options Commander did not know (`--shoe-size 12`, `--fqdn=x`), for the lookup to
 * refuse as the API refuses an unknown parameter. A word that is no option is a usage error: identifiers
 * are given as options.
 * @example unknownParams(['--fqdn', 'acme.com.au']) // { fqdn: 'acme.com.au' }
 */
export function unknownParams(args: readonly string[]): Record<string, OptionValue> {
  const params: Record<string, OptionValue> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-') || arg === '-' || arg === '--') {
      throw new UsageError(
        `${JSON.stringify(arg)} is not an option: give identifiers as options, e.g. --work-email ADDRESS`,
      );
    }
    const equals = arg.indexOf('=');
    const name = paramOfOption(equals < 0 ? arg : arg.slice(0, equals));
    const next = args[i + 1];
    let value = '';
    if (equals >= 0) value = arg.slice(equals + 1);
    else if (next !== undefined && !next.startsWith('-')) value = args[++i]!;
    params[name] = repeatable(value, params[name]);
  }
  return params;
}
