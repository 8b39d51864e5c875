// Field selection (`fields`): which paths of a record a caller asked for, checked against the record's schema
// (project-text.ts projects a stored record onto them). Without a selection, records are served as stored.
import type { TSchema } from '@sinclair/typebox';
import { ProblemError } from '../errors.js';

// Where callers have always found it.
export { projectRecord } from './project-text.js';

/** A selection: each selected key maps to `true` (the whole value) or to the selection inside it. */
export type FieldTree = Map<string, FieldTree | true>;

/** The object schema a field holds, looking through `null` unions and arrays of objects; else undefined. */
function objectInside(schema: TSchema): TSchema | undefined {
  if (Array.isArray(schema.anyOf)) {
    for (const member of schema.anyOf as TSchema[]) {
      const inside = objectInside(member);
      if (inside) return inside;
    }
    return undefined;
  }
  if (schema.type === 'array' && schema.items) return objectInside(schema.items as TSchema);
  return schema.type === 'object' && schema.properties ? schema : undefined;
}

/**
 * Every path a selection may name in records of this schema: top-level fields and dotted paths into objects
 * (through arrays of objects too), in schema order.
 * @example selectablePaths(Person) // ['id', 'name', …, 'current_company', 'current_company.id', …]
 */
export function selectablePaths(schema: TSchema, prefix = ''): string[] {
  const paths: string[] = [];
  for (const [name, property] of Object.entries(schema.properties as Record<string, TSchema>)) {
    const path = `${prefix}${name}`;
    paths.push(path);
    const inside = objectInside(property);
    if (inside) paths.push(...selectablePaths(inside, `${path}.`));
  }
  return paths;
}

/** What a selection may name in one kind of record, ready for parsing requests. */
export class FieldCatalogue {
  private readonly valid: Set<string>;
  readonly paths: readonly string[];

  constructor(schema: TSchema) {
    this.paths = selectablePaths(schema);
    this.valid = new Set(this.paths);
  }

  /**
   * Parses a selection given as a comma-separated list (`name,current_company.name`) or a list of paths; an
   * unknown path is a 400 naming it and listing the valid ones. `id` is always selected.
   */
  parse(given: string | readonly string[]): FieldTree {
    const names = (typeof given === 'string' ? given.split(',') : given).map((name) => name.trim());
    const tree: FieldTree = new Map([['id', true]]);
    let any = false;
    for (const name of names) {
      if (name === '') continue;
      if (!this.valid.has(name)) {
        throw new ProblemError(
          'invalid_parameter',
          `Unknown field "${name.slice(0, 128)}" in fields; valid fields: ${this.paths.join(', ')}.`,
          { parameter: 'fields', field: name.slice(0, 128), accepted: this.paths },
        );
      }
      any = true;
      select(tree, name.split('.'));
    }
    if (!any) {
      throw new ProblemError('invalid_parameter', 'fields is empty; name at least one field.', {
        parameter: 'fields',
        accepted: this.paths,
      });
    }
    return tree;
  }
}

/** Adds one path to a selection; a whole value already selected stays whole. */
function select(tree: FieldTree, segments: string[]): void {
  const [head, ...rest] = segments as [string, ...string[]];
  const current = tree.get(head);
  if (current === true) return;
  if (rest.length === 0) {
    tree.set(head, true);
    return;
  }
  const inner: FieldTree = current ?? new Map();
  tree.set(head, inner);
  select(inner, rest);
}
