// The searches' request bodies and answers (TypeBox: types and the OpenAPI document's named schemas).
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { DEPARTMENTS } from '../vocabulary/departments.js';
import { COUNTRIES, COUNTRY_NAMES } from '../vocabulary/places.js';
import { SENIORITIES } from '../vocabulary/seniorities.js';
import { NameList, RecordIdParam, Text, Words } from './text.js';

/** The most values one filter's list may hold. */
export const MAX_VALUES = 100;
/** The most results one page holds. */
export const MAX_SIZE = 100;
/**
 * The most words one text value (`q`, a location, a position) may hold: each word is a condition of the
 * search (and of its rank), and SQLite refuses an expression of a thousand terms. Real queries hold a few.
 */
export const MAX_WORDS = 32;
/** The bounds of `year_founded` (either sign). */
export const MAX_YEAR = 10_000;
/** Each country a person's search filters on, by code and by name. */
const COUNTRY_NAMES_AND_CODES = COUNTRIES.flatMap((code) => [code, COUNTRY_NAMES[code]]);

/** The members of a person's preview a /v1 search's `fields` may name, in the order results hold them. */
export const PERSON_PREVIEW_FIELDS = [
  'person_id',
  'name',
  'position',
  'company_name',
  'linkedin',
  'seniority',
  'department',
  'location',
  'has_email',
  'has_personal_email',
  'has_phone',
  'has_dnd_phone',
  'has_mobile',
] as const;

/** The members of a company's preview `fields` may name. */
export const COMPANY_PREVIEW_FIELDS = ['id', 'name', 'fqdn', 'industries', 'company_size', 'states'] as const;

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const flag = (description: string) => Type.Boolean({ description });

const PREVIEW_MEMBERS = {
  person_id: Type.String({ description: "The person's id", examples: ['fp000000067890'] }),
  position: nullable(Type.String({ description: 'Current job title', examples: ['Engineering Manager'] })),
  company_name: nullable(Type.String({ description: "The current company's name" })),
  linkedin: nullable(
    Type.String({ description: "The profile's slug, as `ln_slug` takes it", examples: ['jane-citizen'] }),
  ),
  has_email: flag('At least one work e-mail'),
  has_personal_email: flag('At least one personal e-mail'),
  has_phone: flag('At least one phone number'),
  has_dnd_phone: flag('At least one phone number marked do-not-disturb'),
  has_mobile: flag('At least one Australian or New Zealand mobile number (04…, +61 4…, 02x…, +64 2…)'),
};

export const PersonPreview = Type.Object(PREVIEW_MEMBERS, {
  $id: 'PersonPreview',
  title: 'PersonPreview',
  additionalProperties: false,
  description: 'What the people search shows of a person: how they can be reached, never the details',
});
export type PersonPreview = Static<typeof PersonPreview>;

/** Every member but the id may be left out by `fields`. */
const trimmable = <P extends Record<string, TSchema>>(id: string, members: P) =>
  Object.fromEntries(
    Object.entries(members).map(([name, schema]) => [name, name === id ? schema : Type.Optional(schema)]),
  ) as P;

export const PersonPreviewV1 = Type.Object(
  trimmable('person_id', {
    ...PREVIEW_MEMBERS,
    name: nullable(Type.String({ examples: ['Jane Citizen'] })),
    seniority: nullable(Type.String({ examples: ['Manager'] })),
    department: nullable(Type.String({ examples: ['Finance'] })),
    location: nullable(Type.Array(Type.String(), { examples: [['Sydney', 'New South Wales', 'Australia']] })),
  }),
  {
    $id: 'PersonPreviewV1',
    title: 'PersonPreviewV1',
    additionalProperties: false,
    description:
      'A person in /v1 search results: the preview, with who and where they are (`fields` may trim it)',
  },
);

export const CompanyPreview = Type.Object(
  trimmable('id', {
    id: Type.String({ examples: ['f000000117274'] }),
    name: nullable(Type.String({ examples: ['Acme Holdings'] })),
    fqdn: nullable(Type.String({ examples: ['acme.com.au'] })),
    industries: nullable(Type.Array(Type.String())),
    company_size: nullable(Type.String({ examples: ['11 - 50'] })),
    states: nullable(Type.Array(Type.String(), { examples: [['NSW', 'VIC']] })),
  }),
  {
    $id: 'CompanyPreview',
    title: 'CompanyPreview',
    additionalProperties: false,
    description: 'A company in /v1 search results (`fields` may trim it)',
  },
);

export const SearchTotal = Type.Object(
  {
    value: Type.Integer({ minimum: 0, description: 'Matches, counted exactly up to 10,000' }),
    relation: Type.Union([Type.Literal('eq'), Type.Literal('gte')], {
      description:
        '`eq`: exactly `value`; `gte`: at least `value` (10,000, or the matches found when the search stopped at its budget of work)',
    }),
  },
  { $id: 'SearchTotal', title: 'SearchTotal', additionalProperties: false },
);

const page = (id: string, item: string, description: string) =>
  Type.Object(
    {
      total: Type.Ref('SearchTotal'),
      results: Type.Array(Type.Ref(item)),
      next: nullable(
        Type.String({ description: 'Pass as `cursor` for the next page; null on the last page' }),
      ),
    },
    { $id: id, title: id, additionalProperties: false, description },
  );

export const PeopleSearchPage = page('PeopleSearchPage', 'PersonPreviewV1', 'A page of people');
export const CompanySearchPage = page('CompanySearchPage', 'CompanyPreview', 'A page of companies');

/** A filter's value, or a list of values meaning any of them. */
const oneOrMany = (value: TSchema, description: string) =>
  Type.Union([value, Type.Array(value, { minItems: 1, maxItems: MAX_VALUES })], { description });
const str = Text();
/** Searched word by word (or as a whole list member): at least one letter or digit. */
const words = Words();
const labelOrId = (labels: readonly string[]) =>
  Type.Union([Type.String({ enum: [...labels] }), Type.Integer({ minimum: 1, maximum: labels.length })]);

/** A year a company was founded, as filters bound it. */
const YEAR = Type.Integer({ minimum: -MAX_YEAR, maximum: MAX_YEAR });

const common = (fields: readonly string[]) => ({
  q: Type.Optional(Words({ description: `Free text of at most ${MAX_WORDS} words; ranks results` })),
  size: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_SIZE, description: 'Results per page (default 10)' }),
  ),
  cursor: Type.Optional(
    Text({
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'The `next` of a previous page, as it was given: any other value is a 400',
    }),
  ),
  fields: Type.Optional(
    Type.Union([Type.Array(Type.String({ enum: [...fields] })), NameList(fields, false)], {
      description:
        'The result fields wanted (a list, or names separated by commas); the id always, and only the id for ' +
        'an empty list',
    }),
  ),
});

export const PeopleSearchRequest = Type.Object(
  {
    filters: Type.Optional(
      Type.Object(
        {
          company_id: Type.Optional(oneOrMany(RecordIdParam(), "The current company's id")),
          company_domain: Type.Optional(
            oneOrMany(str, "The current company's website or domain, found as a company lookup finds it"),
          ),
          seniority: Type.Optional(oneOrMany(labelOrId(SENIORITIES), 'A label or its id, 1–7')),
          department: Type.Optional(oneOrMany(labelOrId(DEPARTMENTS), 'A label or its id, 1–17')),
          country: Type.Optional(
            oneOrMany(
              Type.String({ enum: COUNTRY_NAMES_AND_CODES }),
              "AU or NZ (or the country's name): the location's last entry, else the current company's hq_country",
            ),
          ),
          state: Type.Optional(oneOrMany(str, 'A state or region, by name or abbreviation (NSW)')),
          location: Type.Optional(
            oneOrMany(words, `Words within the person's location (at most ${MAX_WORDS} in a value)`),
          ),
          skills: Type.Optional(oneOrMany(words, 'A skill the person lists (case and accents ignored)')),
        },
        { additionalProperties: false },
      ),
    ),
    ...common(PERSON_PREVIEW_FIELDS),
  },
  {
    $id: 'PeopleSearchRequest',
    title: 'PeopleSearchRequest',
    additionalProperties: false,
    description: 'Filters (each a value or a list of any-of values, all of them to hold) and/or q',
  },
);

export const CompanySearchRequest = Type.Object(
  {
    filters: Type.Optional(
      Type.Object(
        {
          industry: Type.Optional(oneOrMany(words, 'One of the industries the company lists')),
          company_size: Type.Optional(oneOrMany(str, 'A size label (11 - 50); spaces and case ignored')),
          state: Type.Optional(oneOrMany(str, 'A state the company is in (NSW)')),
          country: Type.Optional(oneOrMany(str, 'hq_country: AU, NZ, or a name')),
          technology: Type.Optional(oneOrMany(words, 'A technology named in nextGen.technographics')),
          revenue: Type.Optional(oneOrMany(str, 'A revenue label ($1M - $10M)')),
          year_founded: Type.Optional(
            Type.Object(
              { gte: Type.Optional(YEAR), lte: Type.Optional(YEAR) },
              {
                additionalProperties: false,
                minProperties: 1,
                description: 'Founded in or after `gte`, in or before `lte`: one of them or both',
              },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    ...common(COMPANY_PREVIEW_FIELDS),
  },
  {
    $id: 'CompanySearchRequest',
    title: 'CompanySearchRequest',
    additionalProperties: false,
    description: 'Filters (each a value or a list of any-of values, all of them to hold) and/or q',
  },
);

export const SEARCH_SCHEMAS = [
  PersonPreview,
  PersonPreviewV1,
  CompanyPreview,
  SearchTotal,
  PeopleSearchPage,
  CompanySearchPage,
  PeopleSearchRequest,
  CompanySearchRequest,
];
