// GET /v1/changes: a change event of contract §8 and a page of the feed (TypeBox: the reply's type and OpenAPI).
import { type TSchema, Type } from '@sinclair/typebox';

/** An object with exactly these members. */
const exactly = (members: Record<string, TSchema>) => Type.Object(members, { additionalProperties: false });
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const text = nullable(Type.String());
const personId = Type.String({ examples: ['fp000000067890'] });
const companyId = Type.String({ examples: ['f000000117274'] });
const fields = Type.Array(Type.String(), { description: 'The top-level fields whose content changed' });
const reason = Type.Unsafe<'snapshot' | 'deleted' | 'suppressed'>({
  type: 'string',
  enum: ['snapshot', 'deleted', 'suppressed'],
  description: 'A snapshot refresh left it out, `enrich delete` removed it, or it was suppressed',
});

export const Job = Type.Object(
  { company_id: text, company_name: text, position: text, seniority: text },
  { $id: 'Job', title: 'Job', additionalProperties: false },
);
export const Title = Type.Object(
  { position: text, seniority: text },
  { $id: 'Title', title: 'Title', additionalProperties: false },
);

/** Each type's `data`, members in the order events carry them. */
const DATA: Record<string, TSchema> = {
  'person.created': exactly({ person_id: personId }),
  'person.updated': exactly({ person_id: personId, fields }),
  'person.removed': exactly({ person_id: personId, reason }),
  'person.job_changed': exactly({
    person_id: personId,
    change: Type.Unsafe<'new_company' | 'departure' | 'joined'>({
      type: 'string',
      enum: ['new_company', 'departure', 'joined'],
      description:
        '`new_company`: from one company to another; `departure`: left one (current null); `joined`: had none (previous null)',
    }),
    previous: nullable(Type.Ref('Job')),
    current: nullable(Type.Ref('Job')),
  }),
  'person.title_changed': exactly({
    person_id: personId,
    company_id: text,
    previous: Type.Ref('Title'),
    current: Type.Ref('Title'),
    promotion: Type.Boolean({ description: 'The seniority rose in the seniority order' }),
  }),
  'company.created': exactly({ company_id: companyId }),
  'company.updated': exactly({ company_id: companyId, fields }),
  'company.removed': exactly({ company_id: companyId, reason }),
};

export const ChangeEvent = Type.Union(
  Object.entries(DATA).map(([type, data]) =>
    Type.Object(
      {
        id: Type.String({
          description: 'Unique and stable; ids sort in commit order',
          examples: ['evt_0000000000000042'],
        }),
        type: Type.Literal(type),
        timestamp: Type.String({ format: 'date-time', description: 'The commit time (UTC, milliseconds)' }),
        data,
      },
      { additionalProperties: false },
    ),
  ),
  {
    $id: 'ChangeEvent',
    title: 'ChangeEvent',
    description: 'A change to the store of record, as the feed lists it and a webhook delivers it',
  },
);

export const ChangesPage = Type.Object(
  {
    data: Type.Array(Type.Ref('ChangeEvent'), {
      description: 'The events after the cursor, in commit order',
    }),
    next: Type.String({
      description:
        'The cursor to give as `after` for the events that follow (always present, also when `data` is empty)',
    }),
    has_more: Type.Boolean({ description: 'More events are there now: read the next page at once' }),
  },
  { $id: 'ChangesPage', title: 'ChangesPage', additionalProperties: false },
);

export const CHANGES_SCHEMAS = [Job, Title, ChangeEvent, ChangesPage];
