// The admin API's bodies and answers (contract §9), for the OpenAPI document and the typed client.
import { Type } from '@sinclair/typebox';
import { ENTITIES, type Entity } from '../vocabulary/entities.js';
import { ALL_SCOPES, OPERATIONS } from '../vocabulary/operations.js';
import { Param, type ParamDoc } from './text.js';
import { UsageCounts } from './usage.js';

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description === undefined ? {} : { description });
const enumOf = (values: readonly string[], description?: string) =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const time = (description: string) => Type.String({ description, examples: ['2026-11-25T10:00:00.000Z'] });

/** A whole number ≥ 1, as a key's settings take it (up to the largest integer JSON numbers hold exactly). */
const count = (description: string) =>
  Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description });

const KEY_SETTINGS = {
  name: Type.String({
    minLength: 1,
    maxLength: 200,
    // Not only white space: the name is what the key is known by.
    pattern: '\\S',
    description: 'Who or what the key is for',
  }),
  scopes: Type.Array(enumOf(ALL_SCOPES), {
    minItems: 1,
    description: 'Default people:read, company:read; admin only when named',
  }),
  rate: count('Requests per second'),
  quota: Type.Union([count('Matched lookups per calendar month (UTC)'), Type.Null()], {
    description: 'Matched lookups per calendar month (UTC); null: none',
  }),
  expires_at: Type.Union(
    [
      Type.String({
        pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}',
        description: 'An ISO 8601 date or date and time (2027-01-31, 2027-01-31T12:00:00Z), in the future',
        examples: ['2027-01-31'],
      }),
      Type.Null(),
    ],
    { description: 'When the key stops working; null: never' },
  ),
};

export const KeyCreate = Type.Object(
  {
    name: KEY_SETTINGS.name,
    scopes: Type.Optional(KEY_SETTINGS.scopes),
    rate: Type.Optional(KEY_SETTINGS.rate),
    quota: Type.Optional(KEY_SETTINGS.quota),
    expires_at: Type.Optional(KEY_SETTINGS.expires_at),
  },
  { $id: 'KeyCreate', title: 'KeyCreate', additionalProperties: false },
);

export const KeyChanges = Type.Partial(Type.Object(KEY_SETTINGS), {
  $id: 'KeyChanges',
  title: 'KeyChanges',
  additionalProperties: false,
  minProperties: 1,
  description: 'The settings to change, each only when given; the token stays the same',
});

export const KeyRotate = Type.Object(
  {
    grace: Type.Optional(
      Type.String({
        pattern: '^\\s*(0|[0-9]+[smhd])\\s*$',
        description:
          'How long the old token keeps working: 30m, 24h, 7d (or seconds, 90s), at most 365d; 0 for none ' +
          '(default 24h)',
        examples: ['24h'],
      }),
    ),
  },
  { $id: 'KeyRotate', title: 'KeyRotate', additionalProperties: false },
);

const keyMembers = {
  id: Type.String({ examples: ['key_7GdK2mQx9a'] }),
  name: Type.String(),
  scopes: Type.Array(enumOf(ALL_SCOPES)),
  rate: Type.Number(),
  quota: Type.Union([Type.Integer(), Type.Null()]),
  created_at: time('When it was created'),
  expires_at: nullable(Type.String()),
  revoked_at: nullable(Type.String()),
  state: enumOf(['active', 'revoked', 'expired']),
  previous_token_expires_at: nullable(
    Type.String(),
    'Until when the token a rotation replaced still works; null when none does',
  ),
};

export const AdminKey = Type.Object(keyMembers, {
  $id: 'AdminKey',
  title: 'AdminKey',
  description: "A key's settings and state: never its token or a hash of one",
});

const keyUsage = {
  usage: Type.Object({
    period: Type.String({ examples: ['2026-11'] }),
    totals: UsageCounts,
    by_operation: Type.Record(Type.String(), UsageCounts),
  }),
  quota_used: Type.Integer({ minimum: 0 }),
  quota_remaining: Type.Union([Type.Integer(), Type.Null()]),
};

export const AdminKeyReport = Type.Object(
  { ...keyMembers, ...keyUsage },
  { $id: 'AdminKeyReport', title: 'AdminKeyReport', description: 'A key and its usage this month' },
);

export const IssuedKey = Type.Object(
  {
    ...keyMembers,
    ...keyUsage,
    token: Type.String({
      description: 'The bearer token: shown in this answer only, never again',
      examples: ['enr_pOCc614QykGvtCj8OOxPkrrWVKtLyc4eHOCm'],
    }),
  },
  { $id: 'IssuedKey', title: 'IssuedKey', description: 'A key created or rotated, with its new token' },
);

export const KeyList = Type.Object(
  { keys: Type.Array(Type.Ref('AdminKey')) },
  { $id: 'KeyList', title: 'KeyList' },
);

const latency = (share: string) =>
  Type.Optional(
    Type.Union([Type.Number(), Type.Null()], {
      description: `Minute and hour: the latency ${share} of the timed requests were answered within, ms (a bucket's upper bound); null when none was timed`,
    }),
  );

export const UsageSeriesPage = Type.Object(
  {
    granularity: enumOf(['minute', 'hour', 'day']),
    from: time('First moment included'),
    to: time('First moment excluded'),
    series: Type.Array(
      Type.Object({
        key_id: Type.String(),
        operation: enumOf(OPERATIONS),
        points: Type.Array(
          Type.Composite([
            Type.Object({
              at: time('The start of the minute, hour or UTC day'),
              p50_ms: latency('half'),
              p99_ms: latency('99%'),
            }),
            UsageCounts,
          ]),
        ),
      }),
    ),
  },
  { $id: 'UsageSeriesPage', title: 'UsageSeriesPage', description: 'Series per key and operation' },
);

export const AuditPage = Type.Object(
  {
    record_ids: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'The records the person or company given names (by any identifier); null for a key alone',
    }),
    entries: Type.Array(
      Type.Object({
        at: time('When the lookup was answered'),
        key_id: Type.String(),
        key_name: nullable(Type.String()),
        operation: enumOf(OPERATIONS),
        params: Type.Array(Type.String(), { description: 'The parameter names given, never their values' }),
        matched: Type.Array(Type.String(), { description: 'The record ids the answer disclosed' }),
        status: Type.Integer(),
      }),
    ),
    next_after: nullable(Type.String(), 'The `after` of the next page; null on the last'),
  },
  { $id: 'AuditPage', title: 'AuditPage', description: 'Audited lookups, oldest first' },
);

/** An entity's lookup parameters, as the lookup documents them (routes/people.ts, routes/company.ts). */
export type EntityParamDocs = Record<Entity, Record<string, ParamDoc>>;

/**
 * A suppression's body: for each entity, an object of that entity's lookup parameters (each of the form its
 * lookup takes), at least one of them, and `dry_run`.
 */
export const suppressionRequest = (params: EntityParamDocs) =>
  Type.Unsafe<Record<string, unknown>>({
    $id: 'SuppressionRequest',
    title: 'SuppressionRequest',
    description:
      "The entity and one or more of its identifiers, by its lookup's parameter names and of their forms: " +
      'a parameter of the other entity is a 400',
    // One member per entity, told apart by `entity`.
    oneOf: ENTITIES.map((entity) => {
      const names = Object.keys(params[entity]);
      return Type.Object(
        {
          entity: Type.Literal(entity),
          dry_run: Type.Optional(Type.Boolean({ description: 'Only say what would be deleted' })),
          ...Object.fromEntries(
            Object.entries(params[entity]).map(([name, doc]) => [
              name,
              Type.Optional(
                Param({ ...doc, description: `${doc.description}; normalised as the lookup would` }),
              ),
            ]),
          ),
        },
        {
          title: `${entity === 'people' ? 'People' : 'Companies'}Suppression`,
          additionalProperties: false,
          // At least one identifier: `entity` and `dry_run` alone are a 400 (missing_identifier). Each
          // alternative names its property too (its form is the member's, above), as linters ask.
          anyOf: names.map((name) => ({ properties: { [name]: {} }, required: [name] })),
        },
      );
    }),
  });

export const SuppressionResult = Type.Object(
  {
    entity: enumOf(ENTITIES),
    dry_run: Type.Boolean(),
    suppressed: Type.Array(
      Type.Object({
        parameter: Type.String(),
        record_ids: Type.Array(Type.String(), { description: 'The records deleted (or, dry, to delete)' }),
        hashes: Type.Integer({ description: 'Identifier hashes kept so that imports skip them' }),
      }),
    ),
  },
  { $id: 'SuppressionResult', title: 'SuppressionResult' },
);

export const StoreStats = Type.Object(
  {
    records: Type.Record(Type.String(), Type.Integer()),
    store_bytes: Type.Integer(),
    last_import: nullable(Type.String(), 'Not recorded yet: null'),
    last_refresh: nullable(Type.String(), 'Not recorded yet: null'),
    events: Type.Union([
      Type.Object({ first: Type.Integer(), last: Type.Integer(), count: Type.Integer() }),
      Type.Null(),
    ]),
    deliveries: Type.Null({ description: 'Webhook deliveries, once the store keeps them' }),
  },
  { $id: 'StoreStats', title: 'StoreStats' },
);

export const ADMIN_SCHEMAS = [
  KeyCreate,
  KeyChanges,
  KeyRotate,
  AdminKey,
  AdminKeyReport,
  IssuedKey,
  KeyList,
  UsageSeriesPage,
  AuditPage,
  SuppressionResult,
  StoreStats,
];
