// Which columns of a list give which lookup parameters: by their headers, or as `--map COLUMN=PARAM` says.
import { ProblemError } from '../../errors.js';
import { COMPANY_PARAMS_OF_NAME, NAME_PARAMS, parseNameMatch } from '../../lookup/name-match.js';
import type { LookupOperation } from '../../lookup/operations.js';
import { COMPANY_COLUMNS, type ColumnAliases, normaliseHeader, PEOPLE_COLUMNS } from './columns.js';
import { ListError, type ListRow, type RowParams } from './list.js';

/** One column used for lookups: its position and header, and the parameters its values are given as. */
export interface ColumnUse {
  index: number;
  header: string;
  params: string[];
}

/** A `--map` override: `param` undefined means the column is not to be used. */
export interface ColumnOverride {
  column: string;
  param: string | undefined;
}

const quoted = (names: readonly string[]) => names.map((name) => JSON.stringify(name)).join(', ');

/**
 * Parses `--map COLUMN=PARAM` (the last `=` separates them; `COLUMN=` leaves the column unused).
 * @example parseOverride('E-mail=personal_email') // { column: 'E-mail', param: 'personal_email' }
 */
export function parseOverride(text: string): ColumnOverride {
  const at = text.lastIndexOf('=');
  if (at <= 0) throw new ListError(`--map expects COLUMN=PARAM, got ${JSON.stringify(text)}`);
  const param = text.slice(at + 1).trim();
  return { column: text.slice(0, at), param: param === '' ? undefined : param };
}

/**
 * The column an override names: its exact header, else the first header equal to it once normalised; when
 * there is none, -1 if `lenient`, else a ListError.
 */
function columnOf(headers: readonly string[], column: string, lenient: boolean): number {
  const exact = headers.indexOf(column);
  if (exact >= 0) return exact;
  const normalised = normaliseHeader(column);
  const index = headers.findIndex((header) => normaliseHeader(header) === normalised);
  if (index < 0 && !lenient)
    throw new ListError(`--map: no column ${JSON.stringify(column)}; headers found: ${quoted(headers)}`);
  return index;
}

const aliasTable = (operation: LookupOperation): ColumnAliases =>
  operation.entity === 'people' ? PEOPLE_COLUMNS : COMPANY_COLUMNS;

/**
 * The columns that give parameters of `operation`, in column order. Each accepted parameter is given by at
 * most one column: one named in `--map`, else the column whose header is the most specific alias for it (the
 * leftmost on a tie). A list with no usable column is a ListError listing the headers found (unless `lenient`:
 * then no use, and overrides naming absent columns are passed over).
 * @example mapColumns(['Name', 'E-Mail ', 'LinkedIn URL'], PEOPLE_LOOKUP)
 * // [{ index: 1, header: 'E-Mail ', params: ['work_email', 'personal_email'] }, { index: 2, …, params: ['ln_url'] }]
 */
export function mapColumns(
  headers: readonly string[],
  operation: LookupOperation,
  overrides: readonly ColumnOverride[] = [],
  { lenient = false } = {},
): ColumnUse[] {
  const accepted = operation.params as readonly string[];
  const given = new Map<number, string[]>();
  const decided = new Set<number>();
  const taken = new Set<string>();
  for (const { column, param } of overrides) {
    const index = columnOf(headers, column, lenient);
    if (index < 0) continue;
    decided.add(index);
    if (param === undefined) continue;
    if (!accepted.includes(param))
      throw new ListError(
        `--map: ${operation.entity} cannot be matched by "${param}"; accepted: ${accepted.join(', ')}`,
      );
    if (taken.has(param)) throw new ListError(`--map: ${param} is given to more than one column`);
    given.set(index, [...(given.get(index) ?? []), param]);
    taken.add(param);
  }
  const table = aliasTable(operation);
  const offered = headers.map((header, index) => {
    const key = normaliseHeader(header);
    if (decided.has(index) || !Object.hasOwn(table, key)) return [];
    return table[key]!.filter((param) => accepted.includes(param));
  });
  for (const param of accepted) {
    if (taken.has(param)) continue;
    let best = -1;
    offered.forEach((params, index) => {
      if (params.includes(param) && (best < 0 || params.length < offered[best]!.length)) best = index;
    });
    if (best >= 0) given.set(best, [...(given.get(best) ?? []), param]);
  }
  dropHalfNameMatch(given);
  const uses = [...given.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, params]) => ({
      index,
      header: headers[index]!,
      params: accepted.filter((param) => params.includes(param)),
    }));
  if (uses.length === 0 && !lenient) {
    throw new ListError(
      `no column gives an identifier to match ${operation.entity} by; headers found: ${quoted(headers)}. ` +
        `Name a column with --map COLUMN=PARAM (PARAM one of ${accepted.join(', ')}).`,
    );
  }
  return uses;
}

const NAME_PART = new Set<string>(NAME_PARAMS);
const COMPANY_OF_NAME = new Set<string>(COMPANY_PARAMS_OF_NAME);
const isNameMatchParam = (param: string) => NAME_PART.has(param) || COMPANY_OF_NAME.has(param);

/**
 * A name is matched only within a company: columns of names without a column of companies (or the other way
 * round) give nothing, so a list of names and e-mail addresses is matched by its addresses alone.
 */
function dropHalfNameMatch(given: Map<number, string[]>): void {
  const params = [...given.values()].flat();
  if (params.some((p) => NAME_PART.has(p)) && params.some((p) => COMPANY_OF_NAME.has(p))) return;
  for (const [index, list] of given) {
    const kept = list.filter((param) => !isNameMatchParam(param));
    if (kept.length > 0) given.set(index, kept);
    else given.delete(index);
  }
}

/** The headers of a list that no lookup uses, in column order. */
export const unusedHeaders = (headers: readonly string[], uses: readonly ColumnUse[]) =>
  headers.filter((_, index) => !uses.some((use) => use.index === index));

/**
 * A row's parameters: each used column's value, unless blank (a blank cell gives nothing; a row giving
 * nothing is `invalid`, as a lookup without an identifier is). Numbers count as their text (an ABN in JSON).
 * A malformed row gives none: it is not looked up.
 */
export function rowParams(uses: readonly ColumnUse[], row: ListRow): RowParams {
  if (row.malformed) return undefined;
  const params: Record<string, string> = {};
  for (const use of uses) {
    const raw = row.fields ? row.fields[use.index] : row.object?.[use.header];
    const value = typeof raw === 'string' ? raw : typeof raw === 'number' ? String(raw) : undefined;
    if (value === undefined || value.trim() === '') continue;
    for (const param of use.params) params[param] = value;
  }
  return withWholeNameMatch(params);
}

/**
 * A row's parameters without those of a name match it cannot make (a name and no company, or a company and
 * no name, in its cells; a one-word name beside an e-mail address): what it gives besides is looked up as it
 * is. A row that gives nothing else keeps them, to be answered with the problem of its name.
 */
function withWholeNameMatch(params: Record<string, string>): Record<string, string> {
  const named: Record<string, string> = {};
  let name = false;
  let company = false;
  let other = false;
  for (const param in params) {
    if (!isNameMatchParam(param)) other = true;
    else {
      named[param] = params[param]!;
      if (NAME_PART.has(param)) name = true;
      else company = true;
    }
  }
  if (!name && !company) return params;
  if (name === company) {
    try {
      parseNameMatch(named);
      return params;
    } catch (error) {
      if (!other) return params;
      if (!(error instanceof ProblemError)) throw error;
    }
  }
  for (const param in named) delete params[param];
  return params;
}

/** How many key sets of NDJSON objects are kept mapped: lists rarely have more; a list that has starts again. */
const MAPPED_KEY_SETS = 256;

/**
 * The parameters of NDJSON rows: objects may carry different members, so each one's are mapped by their
 * names as headers are (with the same overrides), once per set of keys.
 */
export class MemberMapping {
  private readonly byKeys = new Map<string, ColumnUse[]>();

  constructor(
    private readonly operation: LookupOperation,
    private readonly overrides: readonly ColumnOverride[],
  ) {}

  params(row: ListRow): RowParams {
    if (row.malformed || !row.object) return undefined;
    const keys = Object.keys(row.object);
    const signature = keys.join('\u0000');
    let uses = this.byKeys.get(signature);
    if (uses === undefined) {
      if (this.byKeys.size >= MAPPED_KEY_SETS) this.byKeys.clear();
      uses = mapColumns(keys, this.operation, this.overrides, { lenient: true });
      this.byKeys.set(signature, uses);
    }
    return rowParams(uses, row);
  }
}
