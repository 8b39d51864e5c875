// Watchlists and their entries (contract §8), as the routes take and answer them (TypeBox: types and the
// OpenAPI document's named schemas).
import { type Static, Type } from '@sinclair/typebox';
import { MAX_ITEMS, MAX_REF_LENGTH } from './bulk.js';

const problemRef = Type.Unsafe({ $ref: 'Problem#' });

const watchlistId = Type.String({ description: "The watchlist's id", examples: ['wl_4hT9xQ2mPz8a'] });
const entryId = Type.String({
  description: "The entry's id: entries are listed in the order first added",
  examples: ['we_1042'],
});
const ref = Type.String({
  maxLength: MAX_REF_LENGTH,
  description: "The caller's own reference for the entry, echoed in its result and listing",
  examples: ['crm-0042'],
});
const personId = Type.String({ description: 'The person watched', examples: ['fp000000067890'] });
const companyId = Type.String({
  description: 'The company watched: its own events, and everyone joining or leaving it',
  examples: ['f000000117274'],
});

export const Watchlist = Type.Object(
  {
    id: watchlistId,
    name: Type.String({ examples: ['Champions at open deals'] }),
    size: Type.Integer({ minimum: 0, description: 'How many entries it holds (at most 1,000,000)' }),
  },
  { $id: 'Watchlist', title: 'Watchlist', additionalProperties: false },
);
export type Watchlist = Static<typeof Watchlist>;

export const WatchlistList = Type.Object(
  { data: Type.Array(Type.Ref('Watchlist'), { description: "The key's watchlists, oldest first" }) },
  { $id: 'WatchlistList', title: 'WatchlistList', additionalProperties: false },
);

/** The longest name a watchlist may have. */
export const MAX_WATCHLIST_NAME = 200;

export const NewWatchlist = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: MAX_WATCHLIST_NAME,
      // Not only white space: the name is what the watchlist is known by.
      pattern: '\\S',
      examples: ['Champions at open deals'],
    }),
  },
  { $id: 'NewWatchlist', title: 'NewWatchlist', additionalProperties: false },
);

const lookupParams = (entity: string, path: string) =>
  Type.Record(Type.String(), Type.String(), {
    description: `The parameters \`GET ${path}\` takes (any identifier of the ${entity}), resolved as it resolves them`,
  });

export const WatchEntryRequest = Type.Union(
  [
    Type.Object(
      {
        person: lookupParams('person, or a name and company', '/v1/people'),
        ref: Type.Optional(ref),
      },
      {
        additionalProperties: false,
        examples: [{ person: { work_email: 'jane@acme.com.au' }, ref: 'crm-7' }],
      },
    ),
    Type.Object(
      { company: lookupParams('company', '/v1/company'), ref: Type.Optional(ref) },
      { additionalProperties: false, examples: [{ company: { fqdn: 'acme.com.au' }, ref: 'account-3' }] },
    ),
  ],
  {
    $id: 'WatchEntryRequest',
    title: 'WatchEntryRequest',
    description: 'One entry to add: a person or a company, found by its lookup parameters',
  },
);

export const WatchEntriesRequest = Type.Object(
  { entries: Type.Array(Type.Ref('WatchEntryRequest'), { minItems: 1, maxItems: MAX_ITEMS }) },
  { $id: 'WatchEntriesRequest', title: 'WatchEntriesRequest', additionalProperties: false },
);

export const WatchEntryResult = Type.Object(
  {
    ref: Type.Optional(ref),
    status: Type.Unsafe<'watching' | 'not_found' | 'ambiguous' | 'invalid'>({
      type: 'string',
      enum: ['watching', 'not_found', 'ambiguous', 'invalid'],
      description:
        '`watching`: found and watched (added now, or there already); otherwise what the lookup of the same ' +
        'parameters answers (404, 409, 400), nothing added',
    }),
    person_id: Type.Optional(personId),
    company_id: Type.Optional(companyId),
    problem: Type.Optional(problemRef),
  },
  { $id: 'WatchEntryResult', title: 'WatchEntryResult', additionalProperties: false },
);

export const WatchEntriesResponse = Type.Object(
  {
    results: Type.Array(Type.Ref('WatchEntryResult'), { description: 'One per entry, in request order' }),
    size: Type.Integer({ minimum: 0, description: "The watchlist's size after" }),
  },
  { $id: 'WatchEntriesResponse', title: 'WatchEntriesResponse', additionalProperties: false },
);

export const WatchEntry = Type.Object(
  {
    id: entryId,
    kind: Type.Unsafe<'person' | 'company'>({ type: 'string', enum: ['person', 'company'] }),
    person_id: Type.Optional(personId),
    company_id: Type.Optional(companyId),
    ref: Type.Union([ref, Type.Null()]),
  },
  { $id: 'WatchEntry', title: 'WatchEntry', additionalProperties: false },
);
export type WatchEntry = Static<typeof WatchEntry>;

export const WatchEntryPage = Type.Object(
  {
    data: Type.Array(Type.Ref('WatchEntry'), { description: 'In the order first added' }),
    next: Type.Union([entryId, Type.Null()], {
      description: 'The `after` of the next page: the last entry listed (null when none is)',
    }),
    has_more: Type.Boolean(),
  },
  { $id: 'WatchEntryPage', title: 'WatchEntryPage', additionalProperties: false },
);

export const WATCHLIST_SCHEMAS = [
  Watchlist,
  WatchlistList,
  NewWatchlist,
  WatchEntryRequest,
  WatchEntriesRequest,
  WatchEntryResult,
  WatchEntriesResponse,
  WatchEntry,
  WatchEntryPage,
];
