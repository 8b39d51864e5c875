// GET /people (and /v1/people): the person lookup of spec §4.1.
import type { FastifyInstance } from 'fastify';
import type { LookupPath } from '../http/lookup-path.js';
import { DEFAULT_MIN_LIKELIHOOD } from '../lookup/name-match.js';
import { PEOPLE_LOOKUP, type PeopleLookupParam } from '../lookup/operations.js';
import { Person } from '../schemas/person.js';
import { EMAIL, type ParamDoc, RECORD_ID, SHA256 } from '../schemas/text.js';
import { registerLookup } from './lookup.js';

const NAME_MATCH =
  'Matched with one of company_id, company_domain, company_ln_slug, company_name (never across companies), ' +
  'ignoring case, accents, punctuation, middle names and initials, and common short forms (Bob, Robert). ' +
  'Consulted only when no identifier given matches; the answer carries `Enrich-Match-Likelihood`';

export const paramDocs: Record<PeopleLookupParam, ParamDoc> = {
  id: { description: "The service's person identifier", example: 'fp000000067890', form: RECORD_ID },
  ln_slug: { description: 'LinkedIn slug of the person', example: 'jane-citizen-4821' },
  ln_url: {
    description:
      'LinkedIn profile URL; scheme, www., country subdomain, case, query and fragment are ignored',
    example: 'https://www.linkedin.com/in/jane-citizen-4821',
  },
  work_email: {
    description: 'Work e-mail, trimmed and case-folded',
    example: 'jane.citizen@acme.com.au',
    form: EMAIL,
  },
  personal_email: {
    description: 'Personal e-mail, trimmed and case-folded',
    example: 'jane.citizen@gmail.com',
    form: EMAIL,
  },
  work_email_sha256: {
    description:
      'Lower-case hex SHA-256 of a work e-mail, trimmed and case-folded before hashing (upper-case hex is accepted)',
    example: '94b55c7229d687381c370f3b7c7a3ec3fa432bb1650f17287026c2962a2eee2d',
    form: SHA256,
  },
  personal_email_sha256: {
    description:
      'Lower-case hex SHA-256 of a personal e-mail, trimmed and case-folded before hashing (upper-case hex is accepted)',
    example: '80c79cae1daa36adaaf475a7afc798bd71bd2deeadc2c0143ef38b39707cf831',
    form: SHA256,
  },
  name: {
    description: `Full name of the person (first and last name; middle names, titles and suffixes ignored). ${NAME_MATCH}`,
    example: 'Jane Citizen',
  },
  first_name: { description: `First name, with last_name (instead of name). ${NAME_MATCH}`, example: 'Jane' },
  last_name: { description: 'Last name, with first_name', example: 'Citizen' },
  company_id: {
    description: "The current company's id, for a match by name: the strongest way to name it",
    example: 'f900000000001',
    form: RECORD_ID,
  },
  company_domain: {
    description:
      "The current company's website or domain, for a match by name (its registrable domain is compared)",
    example: 'acme.com.au',
  },
  company_ln_slug: {
    description: "The current company's LinkedIn slug, for a match by name",
    example: 'acme-holdings',
  },
  company_name: {
    description:
      "The current company's name, for a match by name: case, punctuation and legal suffixes (Pty Ltd, Limited, " +
      'Ltd, Inc, Co …) ignored; a weaker match (likelihood 2 lower) than by id, domain or LinkedIn',
    example: 'Acme Holdings Pty Ltd',
  },
  min_likelihood: {
    description:
      `The least likelihood (1–10, default ${DEFAULT_MIN_LIKELIHOOD}) a match by name is answered with; weaker ` +
      'ones are 404. 10 is the exact first name at a company given by id, domain or LinkedIn, 8 a short form, ' +
      '7 an initial; each 2 less with company_name',
    example: '8',
    form: { pattern: '^\\s*(?:[1-9]|10)\\s*$' },
  },
};

export function registerPeople(app: FastifyInstance, path: LookupPath) {
  registerLookup(
    app,
    PEOPLE_LOOKUP,
    {
      paramDocs,
      record: Person,
      entity: 'person',
      summary: 'Look up one person by any identifier',
      operationId: 'lookupPerson',
      fieldsExample: 'name,current_company.name',
      tryParam: 'work_email',
    },
    path,
  );
}
