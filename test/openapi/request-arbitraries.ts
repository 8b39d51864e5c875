// An operation's requests as fast-check arbitraries, drawn from the OpenAPI document's own schemas: its query
// parameters and its body (JSON, or NDJSON a line per item), none unknown. Path parameters name resources,
// which the test makes for each request (a generated id would only ever be a 404).
import fc from 'fast-check';

export type Schema = Record<string, unknown>;
export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
}
export interface Operation {
  operationId: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
}
export interface OpenapiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: Schema;
}

/**
 * Members whose rule the document states in words, which a schema cannot say: left out of generated
 * requests (`omitted`), or drawn from an arbitrary that keeps or breaks the stated rule as the test checks.
 */
export type Stated = Record<string, fc.Arbitrary<unknown> | 'omitted'>;

/** The longest text generated: short values keep a text well within its word limit (32), as stated. */
const TEXT_CAP = 40;
const LIST_CAP = 4;

const wordCount = (text: string) => text.split(/[^\p{L}\p{N}]+/u).filter(Boolean).length;

/** A generated request: its query, and its body when it takes one. */
export interface Generated {
  query: Record<string, unknown>;
  body?: unknown;
  /** The body's media type: JSON, or NDJSON (each element of `body` a line) for an operation taking only that. */
  type?: 'application/json' | 'application/x-ndjson';
}

export class RequestArbitraries {
  constructor(private readonly document: OpenapiDocument) {}

  resolve(schema: Schema): Schema {
    let current = schema;
    while (typeof current.$ref === 'string') {
      current = current.$ref
        .slice(2)
        .split('/')
        .reduce<Schema>((node, key) => node[key] as Schema, this.document as unknown as Schema);
    }
    return current;
  }

  /** A string of the schema: its format, its pattern, its length bounds. */
  text(schema: Schema): fc.Arbitrary<string> {
    const min = (schema.minLength as number | undefined) ?? 0;
    const max = Math.min((schema.maxLength as number | undefined) ?? TEXT_CAP, TEXT_CAP);
    if (schema.format === 'email') return fc.emailAddress();
    if (schema.format === 'hostname') return fc.domain();
    const base =
      typeof schema.pattern === 'string'
        ? fc.stringMatching(new RegExp(schema.pattern, 'u'))
        : fc.string({ minLength: min, maxLength: max });
    // A whole-value pattern bounds its strings itself (up to maxLength); a value that need only hold a match
    // is kept short.
    const anchored = typeof schema.pattern === 'string' && /^\^.*\$$/.test(schema.pattern);
    const limit = anchored ? ((schema.maxLength as number | undefined) ?? 4096) : max;
    return base.filter((s) => s.length >= min && s.length <= limit && wordCount(s) <= 32);
  }

  /** The arbitrary of a JSON schema of the document (the subset its request schemas use). */
  arbitrary(given: Schema, stated: Stated, name = ''): fc.Arbitrary<unknown> {
    const rule = stated[name];
    if (rule !== undefined && rule !== 'omitted') return rule;
    const schema = this.resolve(given);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
    if ('const' in schema) return fc.constant(schema.const);
    const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    // An object's `anyOf` of required members (at least one of them) is drawn by object().
    if (union && schema.properties === undefined)
      return fc.oneof(...union.map((member) => this.arbitrary(member, stated, name)));
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (types.length > 1) {
      return fc.oneof(...types.map((type) => this.arbitrary({ ...schema, type }, stated, name)));
    }
    switch (types[0]) {
      case 'integer':
        return fc.integer({
          min: (schema.minimum as number | undefined) ?? -1_000_000,
          max: (schema.maximum as number | undefined) ?? 1_000_000,
        });
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'string':
        return this.text(schema);
      case 'array': {
        const items = this.arbitrary(schema.items as Schema, stated, name);
        const bounds = {
          minLength: (schema.minItems as number | undefined) ?? 0,
          maxLength: Math.min((schema.maxItems as number | undefined) ?? LIST_CAP, LIST_CAP),
        };
        return schema.uniqueItems ? fc.uniqueArray(items, bounds) : fc.array(items, bounds);
      }
      default:
        return this.object(schema, stated);
    }
  }

  /**
   * An object of the schema's properties (the required ones always, the others perhaps), none unknown; a
   * schema of members of any name (`additionalProperties` a schema) gets a few, named as `stated.member`
   * draws them, or anyhow.
   */
  object(schema: Schema, stated: Stated): fc.Arbitrary<Record<string, unknown>> {
    const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>).filter(
      ([name]) => stated[name] !== 'omitted',
    );
    const model = Object.fromEntries(
      properties.map(([name, property]) => [name, this.arbitrary(property, stated, name)]),
    );
    const minProperties = (schema.minProperties as number | undefined) ?? 0;
    const members = schema.additionalProperties;
    if (properties.length === 0 && typeof members === 'object' && members !== null) {
      const names = stated.member;
      // Not `__proto__` or `constructor`, however drawn: the JSON parser refuses a body naming them (400,
      // prototype poisoning) before any rule of the document applies.
      const drawn =
        names === undefined || names === 'omitted'
          ? fc.string({ minLength: 1, maxLength: 12 })
          : (names as fc.Arbitrary<string>);
      const name = drawn.filter((key) => key !== '__proto__' && key !== 'constructor');
      return fc.dictionary(name, this.arbitrary(members as Schema, stated), {
        minKeys: minProperties,
        maxKeys: LIST_CAP,
      });
    }
    const required = (schema.required as string[] | undefined) ?? [];
    // At least one of several members (`anyOf` of `required`): one of those drawn is required, in turn.
    const alternatives = ((schema.anyOf as Schema[] | undefined) ?? [])
      .map((member) => (member.required as string[] | undefined) ?? [])
      .filter((names) => names.every((name) => name in model));
    const record = (names: string[]) =>
      fc
        .record(model, {
          // A name required by a composition (allOf, oneOf) may have no property here: only this schema's own.
          requiredKeys: names.filter((name) => name in model),
        })
        .filter((value) => Object.keys(value).length >= minProperties);
    if (schema.anyOf === undefined) return record(required);
    return fc.oneof(...alternatives.map((names) => record([...required, ...names])));
  }

  /** The requests of an operation: its query, and its body (JSON when it takes JSON, else NDJSON). */
  requests(operation: Operation, stated: Stated): fc.Arbitrary<Generated> {
    const parameters = (operation.parameters ?? []).filter((p) => p.in === 'query');
    const query = this.object(
      {
        properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema])),
        required: parameters.filter((p) => p.required).map((p) => p.name),
      },
      stated,
    );
    const content = operation.requestBody?.content ?? {};
    const json = content['application/json']?.schema;
    const ndjson = content['application/x-ndjson']?.schema;
    const body: fc.Arbitrary<Pick<Generated, 'body' | 'type'>> =
      json !== undefined
        ? this.arbitrary(json, stated).map((value) => ({ body: value, type: 'application/json' as const }))
        : ndjson !== undefined
          ? fc
              .array(this.arbitrary(ndjson, stated, 'line'), { minLength: 1, maxLength: LIST_CAP })
              .map((lines) => ({ body: lines, type: 'application/x-ndjson' as const }))
          : fc.constant({});
    return fc.record({ query, body }).map(({ query, body }) => ({ query, ...body }));
  }
}
