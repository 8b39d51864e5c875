// What a key may be allowed to do (scopes), and the operations metered and audited.

export type Scope = 'people:read' | 'company:read' | 'changes:read' | 'changes:write' | 'admin';
/** Every scope a key can be given (contract §8, §9). */
export const ALL_SCOPES: readonly Scope[] = [
  'people:read',
  'company:read',
  'changes:read',
  'changes:write',
  'admin',
];
/** The scopes of a key created without naming any: the lookups and searches; the others only when asked. */
export const DEFAULT_SCOPES: readonly Scope[] = ['people:read', 'company:read'];

/** The operations metered and audited: the lookups `/people` and `/company`, and the two searches. */
export type Operation = 'people' | 'company' | 'people_search' | 'company_search';
export const OPERATIONS: readonly Operation[] = ['people', 'company', 'people_search', 'company_search'];
/** The operations a quota counts (matched lookups); searches cost nothing against it. */
export const QUOTA_OPERATIONS: readonly Operation[] = ['people', 'company'];
