// GET /company (and /v1/company): the company lookup of spec §4.2.
import type { FastifyInstance } from 'fastify';
import type { LookupPath } from '../http/lookup-path.js';
import type { CompanyParam } from '../identifiers/params.js';
import { COMPANY_LOOKUP } from '../lookup/operations.js';
import { Company } from '../schemas/company.js';
import { type ParamDoc, RECORD_ID } from '../schemas/text.js';
import { registerLookup } from './lookup.js';

export const paramDocs: Record<CompanyParam, ParamDoc> = {
  id: { description: "The service's company identifier", example: 'f000000117274', form: RECORD_ID },
  ln_slug: { description: 'LinkedIn slug of the company', example: 'acme-holdings' },
  ln_url: { description: 'LinkedIn company URL', example: 'https://www.linkedin.com/company/acme-holdings' },
  fqdn: {
    description:
      'Domain name of two or more labels (not an IP address); a subdomain not on file falls back to its ' +
      'registrable domain',
    example: 'acme.com.au',
    form: { format: 'hostname' },
  },
  abn: {
    description: 'Australian Business Number: 11 digits, spaces ignored, whose check digits agree',
    example: '51 824 753 556',
    form: { pattern: '^\\s*(?:\\d\\s*){11}$' },
  },
  website: {
    description: 'Website URL; scheme, www., port, path and case are ignored',
    example: 'https://www.acme.com.au/about',
  },
};

export function registerCompany(app: FastifyInstance, path: LookupPath) {
  registerLookup(
    app,
    COMPANY_LOOKUP,
    {
      paramDocs,
      record: Company,
      entity: 'company',
      summary: 'Look up one company by any identifier',
      operationId: 'lookupCompany',
      fieldsExample: 'name,industry_codes.abn',
      tryParam: 'fqdn',
    },
    path,
  );
}
