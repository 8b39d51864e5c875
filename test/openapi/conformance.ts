// Checks a response against the OpenAPI document (docs/openapi.json, which artefacts.test.ts keeps equal to
// what the routes produce): its status is one the operation documents, its content type one of that
// response's, every header the service defines that it carries is documented there (with a value of its
// schema, and the required ones present), and its body is of the documented schema.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Ajv2020Module, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const Ajv2020 = Ajv2020Module.default;

type Json = Record<string, unknown>;
interface Header {
  required?: boolean;
  schema?: Json;
}
interface Response {
  headers?: Record<string, Header | { $ref: string }>;
  content?: Record<string, { schema?: Json }>;
}

const DOCUMENT_PATH = join(dirname(fileURLToPath(import.meta.url)), '../../docs/openapi.json');
const DOCUMENT_ID = 'enrich-openapi';

/** The document, its operations' paths as patterns, and a validator per schema (compiled on first use). */
class Conformance {
  private readonly document: Json & { paths: Record<string, Record<string, Json>>; components: Json };
  private readonly paths: Array<{ pattern: RegExp; path: string }>;
  private readonly ajv: InstanceType<typeof Ajv2020Module.default>;
  private readonly validators = new Map<string, ValidateFunction>();
  /** The service's own headers, lower-cased, as the document's components name them. */
  private readonly serviceHeaders: Map<string, string>;

  constructor() {
    this.document = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8'));
    this.paths = Object.keys(this.document.paths).map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/}]+\}/g, '[^/]+')}$`),
    }));
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema({ ...this.document, $id: DOCUMENT_ID });
    const headers = (this.document.components.headers ?? {}) as Record<string, Header>;
    this.serviceHeaders = new Map(Object.keys(headers).map((name) => [name.toLowerCase(), name]));
  }

  /** The operation documented for a request, or undefined when the document does not list its path. */
  operation(method: string, url: string): { path: string; operation: Json | undefined } | undefined {
    const pathname = url.replace(/^https?:\/\/[^/]+/, '').split('?')[0]!;
    const found = this.paths.find(({ pattern }) => pattern.test(pathname));
    if (found === undefined) return undefined;
    const item = this.document.paths[found.path]!;
    return { path: found.path, operation: item[method === 'HEAD' ? 'get' : method.toLowerCase()] };
  }

  private resolve<T>(value: T | { $ref: string }): T {
    let current: unknown = value;
    while (current && typeof current === 'object' && '$ref' in current) {
      const ref = (current as { $ref: string }).$ref;
      current = ref
        .slice(2)
        .split('/')
        .reduce<unknown>((node, key) => (node as Json)[key], this.document);
    }
    return current as T;
  }

  /** A validator of a schema of the document, its references resolved in the document. */
  private validator(schema: Json): ValidateFunction {
    const text = JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${DOCUMENT_ID}#/`);
    const known = this.validators.get(text);
    if (known !== undefined) return known;
    const validate = this.ajv.compile(JSON.parse(text));
    this.validators.set(text, validate);
    return validate;
  }

  /** What is wrong with `value` for `schema`, or undefined. */
  private check(schema: Json, value: unknown, name: string): string | undefined {
    const validate = this.validator(schema);
    if (validate(value)) return undefined;
    return this.ajv.errorsText(validate.errors, { dataVar: name });
  }

  /** What is wrong with a response to `method url`, or undefined when it is as documented. */
  problems(
    method: string,
    url: string,
    status: number,
    headers: Record<string, unknown>,
    payload: Buffer,
  ): string[] {
    const found = this.operation(method, url);
    if (found?.operation === undefined) return []; // an unknown path, or a method not offered there (404, 405)
    const { path } = found;
    const responses = found.operation.responses as Record<string, unknown>;
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
    const where = `${method} ${path} → ${status}`;
    if (key === undefined) return [`${where}: the status is not documented for the operation`];
    const response = this.resolve<Response>(responses[key] as Response);
    const errors: string[] = [];
    const documented = new Map(
      Object.entries(response.headers ?? {}).map(([name, header]) => [
        name.toLowerCase(),
        this.resolve<Header>(header),
      ]),
    );
    for (const [name, header] of documented) {
      const value = headers[name];
      if (value === undefined) {
        if (header.required) errors.push(`${where}: the required header ${name} is missing`);
        continue;
      }
      const schema = header.schema ?? {};
      const typed = schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
      const wrong = this.check(schema, typed, `header ${name}`);
      if (wrong !== undefined) errors.push(`${where}: ${wrong}`);
    }
    for (const name of Object.keys(headers)) {
      const service = this.serviceHeaders.get(name.toLowerCase());
      if (service !== undefined && !documented.has(name.toLowerCase())) {
        errors.push(`${where}: the header ${service} is sent but not documented for this response`);
      }
    }
    const body = decoded(payload, headers['content-encoding']);
    if (method === 'HEAD' || body.length === 0) return errors;
    const contentType = String(headers['content-type'] ?? '');
    const mediaType = contentType.split(';')[0]!.trim();
    const content = Object.keys(response.content ?? {}).find(
      (type) => type.split(';')[0]!.trim() === mediaType,
    );
    if (content === undefined) {
      errors.push(`${where}: content type ${contentType || '(none)'} is not documented for the response`);
      return errors;
    }
    const schema = response.content![content]!.schema;
    if (schema === undefined) return errors;
    const values = bodyValues(mediaType, body.toString('utf8'));
    if (values === undefined) return [...errors, `${where}: the body is not ${mediaType}`];
    for (const value of values) {
      const wrong = this.check(schema, value, 'body');
      if (wrong !== undefined) return [...errors, `${where}: ${wrong}`];
    }
    return errors;
  }
}

function decoded(payload: Buffer, encoding: unknown): Buffer {
  if (encoding === 'gzip') return gunzipSync(payload);
  if (encoding === 'br') return brotliDecompressSync(payload);
  return payload;
}

/** The values a body holds for its schema: one JSON value, one per NDJSON line, or the text itself. */
function bodyValues(mediaType: string, text: string): unknown[] | undefined {
  try {
    if (mediaType === 'application/x-ndjson') {
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line));
    }
    if (mediaType === 'application/json' || mediaType.endsWith('+json')) return [JSON.parse(text)];
    return [text];
  } catch {
    return undefined;
  }
}

let conformance: Conformance | undefined;

/** Throws when a response is not as the document says (see above); one to a path it does not list passes. */
export function checkResponse(
  method: string,
  url: string,
  status: number,
  headers: Record<string, unknown>,
  payload: Buffer,
): void {
  conformance ??= new Conformance();
  const problems = conformance.problems(method, url, status, headers, payload);
  if (problems.length > 0) {
    throw new Error(`The response is not as docs/openapi.json documents it:\n${problems.join('\n')}`);
  }
}
