// GET /v1/usage: a key's own usage for the current quota period (TypeBox: the reply's type and OpenAPI).
import { type Static, Type } from '@sinclair/typebox';

const count = (description: string) => Type.Integer({ minimum: 0, description });

export const UsageCounts = Type.Object({
  requests: count('Every keyed lookup, whatever its outcome'),
  matched: count('200 and 304: one record found (what a quota counts)'),
  not_found: count('404'),
  ambiguous: count('409'),
  rejected: count('Any other 4xx: bad parameters, 401, 402, 403, 429'),
});

export const UsageDay = Type.Composite([
  Type.Object({
    day: Type.String({ description: 'UTC day', examples: ['2026-11-22'] }),
    operation: Type.Union([Type.Literal('people'), Type.Literal('company')]),
  }),
  UsageCounts,
]);

export const Usage = Type.Object(
  {
    key_id: Type.String({ examples: ['key_7GdK2mQx9a'] }),
    period: Type.String({ description: 'The quota period: calendar month, UTC', examples: ['2026-11'] }),
    quota: Type.Union([Type.Integer(), Type.Null()], { description: 'Matched lookups allowed per period' }),
    quota_remaining: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Matched lookups left this period; null without a quota',
    }),
    totals: UsageCounts,
    days: Type.Array(UsageDay, { description: 'Per UTC day and operation, in day order' }),
  },
  { $id: 'Usage', title: 'Usage', additionalProperties: false },
);
export type Usage = Static<typeof Usage>;
