// Names and codes of the PostgreSQL schema shared by the store and its migrations.
import type { Entity, IdentifierKind } from '../store.js';

/** The smallint stored for each identifier kind; values are persisted, so never renumber one. */
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

/** The record table and identifier table of an entity. */
export const ENTITY_TABLES: Readonly<Record<Entity, { records: string; identifiers: string }>> = {
  people: { records: 'people', identifiers: 'people_ident' },
  companies: { records: 'companies', identifiers: 'companies_ident' },
};
