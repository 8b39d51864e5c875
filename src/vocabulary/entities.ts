// The two kinds of record, and the kinds of identifier each is found by.

export type Entity = 'people' | 'companies';
/** Every entity, in the order listings give them. */
export const ENTITIES: readonly Entity[] = ['people', 'companies'];

/** Kinds of identifier held in the identifier index, per entity. */
export type PersonIdentifierKind =
  | 'linkedin'
  | 'work_email'
  | 'personal_email'
  | 'work_email_sha256'
  | 'personal_email_sha256'
  | NameAtCompanyKind;
/**
 * A person's last name at their current company, keyed by how the company is named: its id, the domain
 * of its website, its LinkedIn slug, or its folded name (src/identifiers/person-name.ts).
 */
export type NameAtCompanyKind =
  | 'name_at_company_id'
  | 'name_at_domain'
  | 'name_at_linkedin'
  | 'name_at_company_name';
export type CompanyIdentifierKind = 'linkedin' | 'domain' | 'abn';
export type IdentifierKind = PersonIdentifierKind | CompanyIdentifierKind;

/** One normalised identifier of a record, e.g. { kind: 'work_email', value: 'jane@acme.com.au' }. */
export interface Identifier {
  kind: IdentifierKind;
  value: string;
}
