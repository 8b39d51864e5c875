// The searches' OpenAPI description: the compatible query string, what each answers, and how paging works.
import { Type } from '@sinclair/typebox';
import { headers, KEYED, keyedProblems, responseRef, schemaRef } from '../openapi/components.js';
import type { Responses } from '../openapi/document.js';
import { COMPANY_PREVIEW_FIELDS, MAX_WORDS, PERSON_PREVIEW_FIELDS } from '../schemas/search.js';
import { DEPARTMENTS } from '../vocabulary/departments.js';
import { SENIORITIES } from '../vocabulary/seniorities.js';

const numbered = (labels: readonly string[]) => labels.map((label, i) => `${i + 1} = ${label}`).join('; ');

export const COMPATIBLE_DESCRIPTION = `The people search of the deployed API, wire-compatible: parameters in the
query string (any body is ignored), at least one filter, every filter to hold. Results are ordered by person
id, so \`from\`/\`size\` pages are stable while records are added after them; the total is in
\`Enrich-Total\` (exact up to 10,000, then \`Enrich-Total-Relation: gte\`); \`from\` + \`size\` stay within
the first 10,000 results. Needs \`people:read\`; rate-limited like lookups; costs nothing against the monthly
quota of lookups, and each result returned counts against the key's search allowance when it has one (402 once
used up; \`Enrich-Search-Quota-Remaining\`).`;

export const V1_DESCRIPTION = `Filters in a JSON body, each a value or a list (any of its values), every filter
to hold; \`q\` is free text (every word, as a word or the start of one). With \`q\` results are ranked — for
each word and text field, 1 for the start of a word, 1 more for the whole word — then ordered by id; without,
by id. Pages continue with \`cursor\` (the previous page's \`next\`): a record that was there throughout is
never repeated or skipped, whatever is imported meanwhile, up to the first 10,000 results of a query (a cursor
past them is a 400 naming the window). Needs the entity's read scope; rate-limited like lookups; costs nothing
against the monthly quota of lookups, and each result returned counts against the key's search allowance when
it has one (402 once used up; \`Enrich-Search-Quota-Remaining\`). Fields of results: people ${PERSON_PREVIEW_FIELDS.join(', ')};
companies ${COMPANY_PREVIEW_FIELDS.join(', ')}.`;

const param = (description: string, example: string) =>
  Type.Optional(Type.String({ description, examples: [example] }));

export const compatibleQuerystring = Type.Object(
  {
    companyId: param("The current company's id", 'f000000117274'),
    position: param(
      `Words of the position (at most ${MAX_WORDS}), each as a word or the start of one; case, accents and punctuation ignored`,
      'eng man',
    ),
    seniority: param(`Seniority id: ${numbered(SENIORITIES)}`, '5'),
    department: param(`Department id: ${numbered(DEPARTMENTS)}`, '14'),
    selectedCountry: param(
      "AU or NZ: the location's last entry when it names a country, else the current company's hq_country",
      'AU',
    ),
    from: param('Results to skip (default 0, at most 10,000)', '0'),
    size: param('Results per page: 1 to 100 (default 10)', '10'),
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
