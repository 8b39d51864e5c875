// The searches' OpenAPI description: the compatible query string, what each answers, and how paging works.
import { Type } from '@sinclair/typebox';
import { headers, KEYED, responseRef, schemaRef } from '../openapi/components.js';
import type { Responses } from '../openapi/document.js';
import { COMPANY_PREVIEW_FIELDS, MAX_SIZE, MAX_WORDS, PERSON_PREVIEW_FIELDS } from '../schemas/search.js';
import { RecordIdParam, Words } from '../schemas/text.js';
import { SEARCH_BUDGET_MS, TOTAL_CAP } from '../store/search.js';
import { DEPARTMENTS } from '../vocabulary/departments.js';
import { COUNTRIES } from '../vocabulary/places.js';
import { SENIORITIES } from '../vocabulary/seniorities.js';

const numbered = (labels: readonly string[]) => labels.map((label, i) => `${i + 1} = ${label}`).join('; ');

export const COMPATIBLE_DESCRIPTION = `The people search of the deployed API, wire-compatible: parameters in the
query string (any body is ignored), every filter to hold: at least one filter (companyId, position, seniority,
department or selectedCountry) must be given, \`from\` and \`size\` alone are a 400. Results are ordered by person
id, so \`from\`/\`size\` pages are stable while records are added after them; the total is in
\`Enrich-Total\` (exact up to 10,000, then \`Enrich-Total-Relation: gte\`; \`gte\` too, with the matches found, for
a search stopped at its budget of work: ${SEARCH_BUDGET_MS} ms on SQLite); \`from\` + \`size\` stay within
the first 10,000 results. Needs \`people:read\`; rate-limited like lookups; costs nothing against the monthly
quota of lookups, and each result returned counts against the key's search allowance when it has one (402 once
used up; \`Enrich-Search-Quota-Remaining\`).`;

export const V1_DESCRIPTION = `Filters in a JSON body, each a value or a list (any of its values), every filter
to hold; \`q\` is free text (every word, as a word or the start of one). With \`q\` results are ranked — for
each word and text field, 1 for the start of a word, 1 more for the whole word — then ordered by id; without,
by id. Give \`q\` or at least one filter: a body with neither (or with an empty \`filters\` and no \`q\`) is a
400. A search stops at its budget of work (${SEARCH_BUDGET_MS} ms on SQLite) and answers the matches it found, with
\`total.relation\` \`gte\`. Pages continue with \`cursor\`, which must be the \`next\` of a previous page (any other value is a 400): a
record that was there throughout is never repeated or skipped, whatever is imported meanwhile. Needs the entity's read scope; rate-limited like
lookups; costs nothing against the monthly quota. Fields of results: people ${PERSON_PREVIEW_FIELDS.join(', ')};
companies ${COMPANY_PREVIEW_FIELDS.join(', ')}.`;

export const compatibleQuerystring = Type.Object(
  {
    companyId: Type.Optional(
      RecordIdParam({ description: "The current company's id", examples: ['f000000117274'] }),
    ),
    position: Type.Optional(
      Words({
        description: `Words of the position (at most ${MAX_WORDS}), each as a word or the start of one; case, accents and punctuation ignored`,
        examples: ['eng man'],
      }),
    ),
    seniority: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: SENIORITIES.length,
        description: `Seniority id: ${numbered(SENIORITIES)}`,
        examples: [5],
      }),
    ),
    department: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: DEPARTMENTS.length,
        description: `Department id: ${numbered(DEPARTMENTS)}`,
        examples: [14],
      }),
    ),
    selectedCountry: Type.Optional(
      Type.String({
        enum: [...COUNTRIES],
        description:
          "AU or NZ: the location's last entry when it names a country, else the current company's hq_country",
        examples: ['AU'],
      }),
    ),
    from: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: TOTAL_CAP,
        description: 'Results to skip (default 0, at most 10,000)',
        examples: [0],
      }),
    ),
    size: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_SIZE,
        description: `Results per page: 1 to ${MAX_SIZE} (default 10)`,
        examples: [10],
      }),
    ),
  },
  { additionalProperties: false },
);

/** A search's responses: its page (an array of previews for the compatible one) or a problem. */
export function searchResponses(schema: string, compatible: boolean): Responses {
  const ok = compatible
    ? {
        description: 'The page of people, in id order (empty when nothing matches)',
        headers: headers(...KEYED, 'Enrich-Total', 'Enrich-Total-Relation', 'Enrich-Search-Quota-Remaining'),
        content: { 'application/json': { schema: { type: 'array', items: schemaRef(schema) } } },
      }
    : {
        description: 'The page, its total and the cursor of the next',
        headers: headers(...KEYED, 'Enrich-Search-Quota-Remaining'),
        content: { 'application/json': { schema: schemaRef(schema) } },
      };
  return {
    200: ok,
    400: responseRef('SearchBadRequest'),
    401: responseRef('Unauthorized'),
    402: responseRef('SearchQuotaExceeded'),
    403: responseRef('Forbidden'),
    429: responseRef('RateLimited'),
    '4XX': responseRef('UnreadableRequest'),
    500: responseRef('InternalError'),
    503: responseRef('Unavailable'),
  };
}
