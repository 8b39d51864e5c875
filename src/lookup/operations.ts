// The two lookup operations (spec §4): where each is served, what it finds, the scope it needs, its parameters.
import {
  COMPANY_PARAMS,
  type CompanyParam,
  companyLookupKey,
  type LookupKey,
  PERSON_PARAMS,
  type PersonParam,
  personLookupKey,
} from '../identifiers/params.js';
import type { Entity, Operation, Scope } from '../store/store.js';

export interface LookupOperation<P extends string = string> {
  /** Served at this path and under `/v1`. */
  path: '/people' | '/company';
  entity: Entity;
  operation: Operation;
  scope: Scope;
  params: readonly P[];
  toKey(param: P, raw: string): LookupKey;
}

export const PEOPLE_LOOKUP: LookupOperation<PersonParam> = {
  path: '/people',
  entity: 'people',
  operation: 'people',
  scope: 'people:read',
  params: PERSON_PARAMS,
  toKey: personLookupKey,
};

export const COMPANY_LOOKUP: LookupOperation<CompanyParam> = {
  path: '/company',
  entity: 'companies',
  operation: 'company',
  scope: 'company:read',
  params: COMPANY_PARAMS,
  toKey: companyLookupKey,
};

export const LOOKUPS: readonly LookupOperation[] = [
  PEOPLE_LOOKUP as LookupOperation,
  COMPANY_LOOKUP as LookupOperation,
];
