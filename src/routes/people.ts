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
    },
    path,
  );
}
