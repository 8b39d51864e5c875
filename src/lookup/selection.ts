// A lookup's `fields`: parsed once per request against its entity's catalogue (built on first use), and the
// entity tag of the projection it selects, which must differ from the whole record's.
import { hash } from 'node:crypto';
import { ProblemError } from '../errors.js';
import { Company } from '../schemas/company.js';
import { Person } from '../schemas/person.js';
import type { Entity } from '../vocabulary/entities.js';
import { FieldCatalogue, type FieldTree } from './fields.js';
import { MAX_VALUE_LENGTH } from './query.js';

/** The parameter that selects fields: not an identifier, so it alone is still `missing_identifier`. */
export const FIELDS_PARAM = 'fields';

/** A parsed `fields`: the paths to keep, and the digest that tells this selection's projections apart. */
export interface Selection {
  tree: FieldTree;
  digest: string;
}

const SCHEMAS = { people: Person, companies: Company } as const;
const catalogues: Partial<Record<Entity, FieldCatalogue>> = {};

/** What `fields` may name in records of an entity; made on first use, so a server that never selects pays nothing. */
export function fieldCatalogue(entity: Entity): FieldCatalogue {
  catalogues[entity] ??= new FieldCatalogue(SCHEMAS[entity]);
  return catalogues[entity];
}

/** One text per selection, whatever order or redundancy it was written with: `current_company(name),id,name`. */
function canonical(tree: FieldTree): string {
  return [...tree.keys()]
    .sort()
    .map((key) => {
      const inner = tree.get(key)!;
      return inner === true ? key : `${key}(${canonical(inner)})`;
    })
    .join(',');
}

const invalid = (detail: string) =>
  new ProblemError('invalid_parameter', detail, { parameter: FIELDS_PARAM });

/**
 * The selection a lookup's `fields` value asks for (a query string value, or a POST body's, joined): checked
 * as an identifier's value is (once, non-empty, bounded), then against the entity's catalogue — an unknown
 * path is a 400 listing the valid ones.
 * @example parseSelection('people', 'name,current_company.name').digest // 'Xw3…' (10 characters)
 */
export function parseSelection(entity: Entity, value: unknown): Selection {
  if (typeof value !== 'string') throw invalid(`${FIELDS_PARAM} is given more than once.`);
  if (value.length > MAX_VALUE_LENGTH)
    throw invalid(`${FIELDS_PARAM} is longer than ${MAX_VALUE_LENGTH} characters.`);
  const tree = fieldCatalogue(entity).parse(value);
  return { tree, digest: hash('sha1', canonical(tree), 'base64url').slice(0, 10) };
}

/**
 * The entity tag of a record's projection: the record's own tag with the selection's digest added inside
 * its quotes. As strong as the record's: the projection's bytes follow from the record's and the selection.
 * @example selectionEtag('"q5mE0Hd1v9kC3xYtL2aB7w"', selection) // '"q5mE0Hd1v9kC3xYtL2aB7w.Xw3kT0bq1c"'
 */
export function selectionEtag(etag: string, selection: Selection): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}.${selection.digest}"` : `${etag}.${selection.digest}`;
}
