// The documents of /v1/lists: a list job's progress, and a page of the key's jobs.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { MATCH_STATUSES, type MatchStatus } from '../vocabulary/match-statuses.js';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Time = (description: string) => Type.String({ format: 'date-time', description });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ListJob = Type.Object(
  {
    id: Type.String({ examples: ['ls_4hT9xQ2mPz8a'] }),
    entity: Type.Union([Type.Literal('people'), Type.Literal('companies')]),
    format: Type.Union([Type.Literal('csv'), Type.Literal('ndjson')]),
    status: Type.Union(
      [Type.Literal('queued'), Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')],
      { description: 'queued, running, done (its result ready) or failed (see problem)' },
    ),
    mapping: Type.Array(
      Type.Object(
        { column: Type.String(), params: Type.Array(Type.String()) },
        { additionalProperties: false },
      ),
      { description: 'The columns the rows are matched by, and the lookup parameters each gives' },
    ),
    rows: Type.Union([Count('Rows in the list'), Type.Null()], { description: 'null until counted' }),
    processed: Count('Rows matched so far (and charged)'),
    matched: Count('Rows matched to one record'),
    not_found: Count('Rows that matched nothing'),
    ambiguous: Count('Rows that matched several records'),
    invalid: Count('Rows without a usable identifier, or unreadable'),
    quota_exceeded: Count("Rows not looked up: the key's monthly quota was used up"),
    eta_seconds: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
      description: 'Seconds left at the pace so far, while running',
    }),
    problem: Type.Union(
      [
        Type.Object({ code: Type.String(), detail: Type.String() }, { additionalProperties: false }),
        Type.Null(),
      ],
      { description: 'Why a failed job stopped' },
    ),
    created_at: Time('When the list was uploaded'),
    started_at: Nullable(Time('When it was first run')),
    finished_at: Nullable(Time('When it ended')),
    expires_at: Time('When the job and its result are deleted (7 days after it ended)'),
  },
  { $id: 'ListJob', title: 'ListJob', additionalProperties: false },
);
export type ListJobView = Static<typeof ListJob>;

export const ListPage = Type.Object(
  {
    data: Type.Array(Type.Ref('ListJob')),
    next: Type.Union([Type.String(), Type.Null()], {
      description: 'after= for the next page, null at the end',
    }),
    has_more: Type.Boolean(),
  },
  { $id: 'ListPage', title: 'ListPage', additionalProperties: false },
);

/** A line of an uploaded NDJSON list: one row, its members the columns it is matched by. */
export const ListRow = Type.Object(
  {},
  {
    $id: 'ListRow',
    title: 'ListRow',
    additionalProperties: true,
    description:
      'One row of an NDJSON list: an object whose members are its columns, matched by their names as ' +
      '`enrich match` matches a CSV header (`enrich_id`, `work_email`, `linkedin`, `website`, … or as `map` ' +
      'says); a list none of whose columns gives an identifier is a 400. A line that holds no object is not ' +
      'refused: it is that row of the result, `invalid`, kept whole in `enrich_input`',
  },
);

/** A line of a matched NDJSON list (`enrich match`'s output): the row's own members, then the match's. */
export const ListResultRow = Type.Object(
  {
    // An enum rather than a union of constants: generated clients get one union of string literals.
    enrich_status: Type.Unsafe<MatchStatus>({ type: 'string', enum: [...MATCH_STATUSES] }),
    enrich_matched_by: Nullable(
      Type.Array(Type.String(), { description: 'The parameters that matched, for a matched row' }),
    ),
    enrich_id: Nullable(Type.String({ description: "The matched record's id" })),
    enrich_likelihood: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: 10,
          description:
            'People only: how likely the record is the one asked for, when matched by name and company',
        }),
      ),
    ),
    enrich_problem: Nullable(
      Type.String({ description: 'Why the row was not matched, when the lookup said' }),
    ),
    enrich_record: Nullable(
      Type.Object(
        {},
        { additionalProperties: true, description: 'The matched record (its `fields` only, when given)' },
      ),
    ),
    enrich_input: Type.Optional(Type.String({ description: 'The line as given, when it held no object' })),
  },
  {
    $id: 'ListResultRow',
    title: 'ListResultRow',
    // The row's own members come first, as uploaded.
    additionalProperties: true,
    description: 'A row of the result: its own members as uploaded, then what the match found',
  },
);

export const LIST_SCHEMAS = [ListJob, ListPage, ListRow, ListResultRow];
