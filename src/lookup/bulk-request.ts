// What a bulk lookup asks for: `{"requests": [{"params": {…}, "ref": "…"}, …], "fields": […]}` as JSON, or
// one `{"params": …, "ref": …}` per line as NDJSON. The envelope's shape is checked here (a whole-request 400
// naming the JSON path, a 413 past the item limit); what is inside `params` is each item's own business,
// answered as the single GET would answer it.
import { ProblemError } from '../errors.js';
import { MAX_ITEMS, MAX_REF_LENGTH } from '../schemas/bulk.js';

/** Lines in one NDJSON stream. */
export const MAX_STREAM_LINES = 1_000_000;

/** One item of a bulk: the GET's parameters as an object, and the caller's reference echoed back. */
export interface BulkItem {
  params: Record<string, unknown>;
  ref: string | undefined;
}

export interface BulkRequest {
  items: BulkItem[];
  /** The fields selected for every record, when given. */
  fields: string[] | undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Characters of a JSON path a problem repeats, and of its whole detail: small whatever the body. */
export const MAX_PATH_SHOWN = 200;
export const MAX_DETAIL_SHOWN = 400;

/**
 * A text cut to at most `max` characters, an ellipsis marking the cut (never inside a surrogate pair).
 * @example clip('$[0][0][0][0]', 8) // '$[0][0]…'
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/** A 400 for a body of the wrong shape, naming where (the path and detail clipped to a few hundred characters). */
export function invalidBody(path: string, detail: string, extensions: Record<string, unknown> = {}) {
  const shown = clip(path, MAX_PATH_SHOWN);
  return new ProblemError('invalid_body', clip(`${shown}: ${detail}`, MAX_DETAIL_SHOWN), {
    path: shown,
    ...extensions,
  });
}

/** A 413 for more items (or bytes) than a request may hold. */
export function tooManyItems(
  given: string,
  maxItems: number,
  extensions: Record<string, unknown> = {},
): ProblemError {
  return new ProblemError(
    'payload_too_large',
    `${given}; a request holds at most ${maxItems.toLocaleString('en')} items (send more as several requests, or as an NDJSON stream).`,
    { max_items: maxItems, ...extensions },
  );
}

/** Refuses members other than the accepted ones, naming the first. */
function onlyMembers(value: Record<string, unknown>, path: string, accepted: readonly string[]): void {
  for (const name in value) {
    if (!accepted.includes(name)) {
      const shown = JSON.stringify(name.slice(0, 64));
      throw invalidBody(`${path}[${shown}]`, `unknown member; accepted: ${accepted.join(', ')}.`);
    }
  }
}

/** The members a bulk item may hold. */
const ITEM_MEMBERS: readonly string[] = ['params', 'ref'];

/**
 * One item, `{"params": {…}, "ref": "…"}`, found at `path`.
 * @example parseBulkItem({ params: { id: 'fp1' }, ref: 'row-1' }, '$.requests[0]')
 */
export function parseBulkItem(value: unknown, path: string): BulkItem {
  if (!isObject(value)) throw invalidBody(path, 'an item must be an object with "params" (and "ref").');
  onlyMembers(value, path, ITEM_MEMBERS);
  const { params, ref } = value;
  if (!isObject(params)) {
    throw invalidBody(`${path}.params`, 'params must be an object of parameter names and values.');
  }
  if (ref !== undefined && (typeof ref !== 'string' || ref.length > MAX_REF_LENGTH)) {
    throw invalidBody(`${path}.ref`, `ref must be a string of at most ${MAX_REF_LENGTH} characters.`);
  }
  return { params, ref };
}

/** `fields` as a list of paths (the catalogue checks the names). */
function parseFieldList(fields: unknown): string[] | undefined {
  if (fields === undefined) return undefined;
  if (!Array.isArray(fields)) throw invalidBody('$.fields', 'fields must be an array of field names.');
  fields.forEach((name, i) => {
    if (typeof name !== 'string') throw invalidBody(`$.fields[${i}]`, 'a field name must be a string.');
  });
  return fields as string[];
}

/**
 * The body of a JSON bulk request, parsed: 1 to `maxItems` items. Throws the whole request's problem.
 * @example parseBulkBody({ requests: [{ params: { work_email: 'jane@acme.com.au' }, ref: 'crm-0042' }] })
 */
export function parseBulkBody(body: unknown, maxItems = MAX_ITEMS): BulkRequest {
  if (!isObject(body)) throw invalidBody('$', 'the body must be an object with "requests".');
  onlyMembers(body, '$', ['requests', 'fields']);
  const { requests } = body;
  if (!Array.isArray(requests)) throw invalidBody('$.requests', 'requests must be an array of items.');
  if (requests.length === 0) {
    throw invalidBody('$.requests', `requests is empty; give 1 to ${maxItems.toLocaleString('en')} items.`);
  }
  if (requests.length > maxItems) {
    throw tooManyItems(`The request holds ${requests.length.toLocaleString('en')} items`, maxItems);
  }
  const items = requests.map((item, i) => parseBulkItem(item, `$.requests[${i}]`));
  return { items, fields: parseFieldList(body.fields) };
}
