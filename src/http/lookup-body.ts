// The JSON body of a POST lookup, read from the request stream and turned into the parameters a GET's query
// string would give — or into the problem it is, which the lookup path answers once the key is checked.
import type { IncomingMessage } from 'node:http';
import { ProblemError } from '../errors.js';
import { FIELDS_PARAM } from '../lookup/selection.js';
import { MAX_JSON_DEPTH, nestingBeyond } from '../schemas/json-text.js';

/** A lookup's body holds a few identifiers: anything near this size is not one. */
export const MAX_LOOKUP_BODY = 64 * 1024;

/** What a lookup was asked: the parameters of its query string or JSON body, or why its body was refused. */
export type LookupInput = Record<string, unknown> | ProblemError;

const JSON_MEDIA_TYPE = 'application/json';
const UTF8 = new TextDecoder('utf-8', { fatal: true });

const tooLarge = () =>
  // The rest of the body is not read: the connection closes after the answer rather than carry it.
  new ProblemError(
    'payload_too_large',
    `The body is larger than ${MAX_LOOKUP_BODY} bytes.`,
    {},
    { connection: 'close' },
  );

const invalidBody = (detail: string) => new ProblemError('invalid_body', detail);

/** The media type of a Content-Type header, without parameters, in lower case. */
const mediaType = (header: string | undefined) => (header ?? '').split(';', 1)[0]!.trim().toLowerCase();

/**
 * A parsed body as query parameters: an object whose identifiers are strings, and whose `fields` is a string
 * or a list of strings (joined with commas, as the query string writes it). Members the operation does not
 * accept are left as they are, for the query's own check to name.
 * @example bodyParams({ work_email: 'jane@acme.com.au', fields: ['name'] }, PERSON_PARAMS)
 * // { work_email: 'jane@acme.com.au', fields: 'name' }
 */
export function bodyParams(body: unknown, accepted: readonly string[]): LookupInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return invalidBody('The body must be a JSON object of parameter names and values.');
  }
  const params: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    if (name === FIELDS_PARAM && Array.isArray(value)) {
      if (!value.every((path) => typeof path === 'string')) {
        return new ProblemError('invalid_parameter', 'fields must be a string or a list of strings.', {
          parameter: FIELDS_PARAM,
        });
      }
      params[name] = value.join(',');
    } else if (typeof value !== 'string' && (name === FIELDS_PARAM || accepted.includes(name))) {
      return new ProblemError('invalid_parameter', `${name} must be a string.`, { parameter: name });
    } else {
      params[name] = value;
    }
  }
  return params;
}

/** A body as read: its bytes, or the problem of one that is too large. */
function readBytes(req: IncomingMessage): Promise<Buffer | ProblemError> {
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_LOOKUP_BODY) return Promise.resolve(tooLarge());
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length <= MAX_LOOKUP_BODY) chunks.push(chunk);
      else finish(tooLarge());
    };
    const onEnd = () => finish(Buffer.concat(chunks, length));
    const onError = () => finish(invalidBody('The body could not be read.'));
    const finish = (result: Buffer | ProblemError) => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      if (result instanceof ProblemError) req.pause();
      resolve(result);
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/**
 * Reads a POST lookup's body: `application/json` (any charset parameter; JSON is UTF-8), at most
 * MAX_LOOKUP_BODY bytes, an object of parameters. Never rejects: a body that is not one is the problem
 * to answer (415, 413 or 400).
 */
export async function readLookupBody(
  req: IncomingMessage,
  accepted: readonly string[],
): Promise<LookupInput> {
  if (mediaType(req.headers['content-type']) !== JSON_MEDIA_TYPE) {
    return new ProblemError(
      'unsupported_media_type',
      'Send the parameters as a JSON object (Content-Type: application/json).',
    );
  }
  const bytes = await readBytes(req);
  if (bytes instanceof ProblemError) return bytes;
  let body: unknown;
  try {
    const text = UTF8.decode(bytes);
    if (nestingBeyond(text, MAX_JSON_DEPTH) !== undefined) {
      return invalidBody(`The body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
    }
    body = JSON.parse(text);
  } catch {
    return invalidBody('The body is not valid JSON (UTF-8).');
  }
  return bodyParams(body, accepted);
}
