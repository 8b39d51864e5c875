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
import type { Entity } from '../vocabulary/entities.js';
import type { Operation, Scope } from '../vocabulary/operations.js';
import { NAME_MATCH_PARAMS, type NameMatch, type NameMatchParam, parseNameMatch } from './name-match.js';
import { appended } from './query.js';

/** What a lookup asks: the identifiers' keys, and a match by name and company when one is given. */
export interface LookupKeys {
  keys: Array<[string, LookupKey]>;
  name?: NameMatch | undefined;
}

export interface LookupOperation<P extends string = string> {
  /** Served at this path and under `/v1`. */
  path: '/people' | '/company';
  entity: Entity;
  operation: Operation;
  scope: Scope;
  /** Every parameter the lookup accepts but `fields`: identifiers, and a name match's for `/people`. */
  params: readonly P[];
  /** The keys of the parameters given (as parseLookupQuery lists them); throws the 400 of a bad value. */
  toKeys(given: Array<[P, string]>): LookupKeys;
}

export type PeopleLookupParam = PersonParam | NameMatchParam;
export const PEOPLE_LOOKUP_PARAMS: readonly PeopleLookupParam[] = [...PERSON_PARAMS, ...NAME_MATCH_PARAMS];
const NAME_MATCH_PARAM_SET = new Set<string>(NAME_MATCH_PARAMS);

/**
 * The keys of a `/people` lookup: each identifier's, and the name match the name parameters ask for.
 * @example peopleKeys([['work_email', 'jane@acme.com.au']]) // { keys: [['work_email', {…}]] }
 */
export function peopleKeys(given: Array<[PeopleLookupParam, string]>): LookupKeys {
  let keys: Array<[string, LookupKey]> | undefined;
  let named: Partial<Record<NameMatchParam, string>> | undefined;
  for (const [param, raw] of given) {
    if (!NAME_MATCH_PARAM_SET.has(param))
      keys = appended(keys, [param, personLookupKey(param as PersonParam, raw)]);
    else {
      named ??= {};
      named[param as NameMatchParam] = raw;
    }
  }
  keys ??= [];
  return named === undefined ? { keys } : { keys, name: parseNameMatch(named) };
}

export const PEOPLE_LOOKUP: LookupOperation<PeopleLookupParam> = {
  path: '/people',
  entity: 'people',
  operation: 'people',
  scope: 'people:read',
  params: PEOPLE_LOOKUP_PARAMS,
  toKeys: peopleKeys,
};

export const COMPANY_LOOKUP: LookupOperation<CompanyParam> = {
  path: '/company',
  entity: 'companies',
  operation: 'company',
  scope: 'company:read',
  params: COMPANY_PARAMS,
  toKeys: (given) => ({ keys: given.map(([param, raw]) => [param, companyLookupKey(param, raw)]) }),
};

export const LOOKUPS: readonly LookupOperation[] = [
  PEOPLE_LOOKUP as LookupOperation,
  COMPANY_LOOKUP as LookupOperation,
];
