// GET /v1/usage: a key's own usage for the current quota period (TypeBox: the reply's type and OpenAPI).
import { type Static, Type } from '@sinclair/typebox';
import { OPERATIONS, type Operation } from '../vocabulary/operations.js';

const count = (description: string) => Type.Integer({ minimum: 0, description });

export const UsageCounts = Type.Object({
  requests: count('Every keyed lookup or search, whatever its outcome'),
  matched: count(
    'Lookups: 200 and 304, one record found (what a quota counts). Searches: 200 with at least one result',
  ),
  not_found: count('Lookups: 404. Searches: 200 with no result'),
  ambiguous: count('409'),
  rejected: count('Any other 4xx: bad parameters, 401, 402, 403, 429'),
});

export const UsageDay = Type.Composite([
  Type.Object({
    day: Type.String({ description: 'UTC day', examples: ['2026-11-22'] }),
    // An enum rather than a union of constants: generated clients get one union of string literals.
    operation: Type.Unsafe<Operation>({
      type: 'string',
      enum: [...OPERATIONS],
      description: 'The lookups people and company; the searches people_search and company_search',
    }),
  }),
  UsageCounts,
]);

export const Usage = Type.Object(
  {
    key_id: Type.String({ examples: ['key_7GdK2mQx9a'] }),
    period: Type.String({ description: 'The quota period: calendar month, UTC', examples: ['2026-11'] }),
    quota: Type.Union([Type.Integer(), Type.Null()], { description: 'Matched lookups allowed per period' }),
    quota_remaining: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Matched lookups left this period (searches cost none); null without a quota',
    }),
    search_quota: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Search results (previews) allowed per period: the search allowance',
    }),
    search_quota_remaining: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Search results left this period; null without a search allowance',
    }),
    totals: UsageCounts,
    days: Type.Array(UsageDay, { description: 'Per UTC day and operation, in day order' }),
  },
  { $id: 'Usage', title: 'Usage', additionalProperties: false },
);
export type Usage = Static<typeof Usage>;
