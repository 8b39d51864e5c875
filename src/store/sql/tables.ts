// Names and codes the two backends' schemas share: each entity's tables, and the code of each identifier kind.
import type { Entity, IdentifierKind } from '../../vocabulary/entities.js';

/** Small integers for identifier kinds: the identifier index is keyed by (kind, value). Never renumber. */
export const IDENTIFIER_KIND_CODES: Readonly<Record<IdentifierKind, number>> = {
  linkedin: 1,
  work_email: 2,
  personal_email: 3,
  domain: 4,
  abn: 5,
  work_email_sha256: 6,
  personal_email_sha256: 7,
  name_at_company_id: 8,
  name_at_domain: 9,
  name_at_linkedin: 10,
  name_at_company_name: 11,
};

/** The code of a kind; throws for a kind the index does not know (a batch is then refused whole). */
export function kindCode(kind: IdentifierKind): number {
  const code = IDENTIFIER_KIND_CODES[kind];
  if (code === undefined) throw new TypeError(`unknown identifier kind: ${String(kind)}`);
  return code;
}

/** An entity's record table, identifier index and search table; the only names interpolated into SQL. */
export interface EntityTables {
  records: string;
  identifiers: string;
  search: string;
}

export const ENTITY_TABLES: Readonly<Record<Entity, EntityTables>> = {
  people: { records: 'people', identifiers: 'people_ident', search: 'people_search' },
  companies: { records: 'companies', identifiers: 'companies_ident', search: 'companies_search' },
};
