// The synthetic data set: companies and people for AU/NZ, deterministic for a seed, streamed.
export { type CompanyFacts, companyFacts } from './company.js';
export { buildCompany, generateCompanies } from './company-record.js';
export { blockStart, ID_BLOCK, ID_BLOCKS } from './numbering.js';
export { buildPerson, generatePeople } from './person.js';
export { type Staffing, staffing } from './staffing.js';
export { type DatasetOptions, type DatasetSummary, writeDataset } from './write.js';
