// GET /people (and /v1/people): the person lookup of spec §4.1.
import type { FastifyInstance } from 'fastify';
import type { LookupPath } from '../http/lookup-path.js';
import type { PersonParam } from '../identifiers/params.js';
import { PEOPLE_LOOKUP } from '../lookup/operations.js';
import { Person } from '../schemas/person.js';
import { registerLookup } from './lookup.js';

export const paramDocs: Record<PersonParam, { description: string; example: string }> = {
  id: { description: "The service's person identifier", example: 'fp000000067890' },
  ln_slug: { description: 'LinkedIn slug of the person', example: 'jane-citizen-4821' },
  ln_url: {
    description:
      'LinkedIn profile URL; scheme, www., country subdomain, case, query and fragment are ignored',
    example: 'https://www.linkedin.com/in/jane-citizen-4821',
  },
  work_email: { description: 'Work e-mail, trimmed and case-folded', example: 'jane.citizen@acme.com.au' },
  personal_email: {
    description: 'Personal e-mail, trimmed and case-folded',
    example: 'jane.citizen@gmail.com',
  },
  work_email_sha256: {
    description:
      'Lower-case hex SHA-256 of a work e-mail, trimmed and case-folded before hashing (upper-case hex is accepted)',
    example: '94b55c7229d687381c370f3b7c7a3ec3fa432bb1650f17287026c2962a2eee2d',
  },
  personal_email_sha256: {
    description:
      'Lower-case hex SHA-256 of a personal e-mail, trimmed and case-folded before hashing (upper-case hex is accepted)',
    example: '80c79cae1daa36adaaf475a7afc798bd71bd2deeadc2c0143ef38b39707cf831',
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
