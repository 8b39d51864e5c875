// The fields a matched list adds (`enrich match --fields`, a list job's `fields`): validated against the record's
// schema, as the paths to add to a CSV row and the selection of an NDJSON record.
import type { FieldTree } from '../../lookup/fields.js';
import type { Entity } from '../../vocabulary/entities.js';

export interface FieldSelection {
  tree: FieldTree;
  paths: string[];
}

/** Parses comma-separated field paths; throws the lookup's ProblemError naming a path the record has not. */
export async function fieldSelection(entity: Entity, fields: string): Promise<FieldSelection> {
  // Loaded when asked for: the schemas are large, and most matches add no field.
  const { FieldCatalogue } = await import('../../lookup/fields.js');
  const { Person } = await import('../../schemas/person.js');
  const { Company } = await import('../../schemas/company.js');
  const tree = new FieldCatalogue(entity === 'people' ? Person : Company).parse(fields);
  const paths = [...new Set(fields.split(',').map((path) => path.trim()))].filter((path) => path !== '');
  return { tree, paths };
}
