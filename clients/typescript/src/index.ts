// @enrich/client: a typed client of the Enrich API (types generated from its OpenAPI document).
export { type BulkOptions, type CallOptions, Enrich, type EnrichOptions, MAX_BULK_ITEMS } from './client.js';
export { EnrichError, UNEXPECTED_RESPONSE } from './errors.js';
export type { paths } from './schema.js';
export type {
  BulkAnswer,
  BulkItem,
  BulkSummary,
  ChangeWebhook,
  Company,
  CompanyBulkResult,
  CompanyQuery,
  CompanySearchPage,
  CompanySearchRequest,
  CompanySearchResult,
  CreateWebhook,
  PeopleBulkResult,
  PeopleSearchPage,
  PeopleSearchRequest,
  Person,
  PersonQuery,
  PersonSearchResult,
  Problem,
  ProblemCode,
  Scope,
  Usage,
  WatchEntry,
  WatchEntryPage,
  WatchEntryRequest,
  WatchEntryResult,
  Watchlist,
  WebhookDeliveries,
  WebhookDelivery,
  WebhookDeliveryQuery,
  WebhookEndpoint,
  WebhookSecret,
  WebhookTest,
} from './types.js';
export { verifyWebhook, WebhookVerificationError } from './verify.js';
