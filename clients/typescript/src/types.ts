// Named types of the API's records, queries and problems, from the types generated from its OpenAPI document.
import type { components, operations } from './schema.js';

type Schemas = components['schemas'];

/** A person record, exactly as imported: every field may be absent or null. */
export type Person = Schemas['Person'];
/** A company record, exactly as imported: every field may be absent or null. */
export type Company = Schemas['Company'];
/** The calling key's usage this month. */
export type Usage = Schemas['Usage'];
/** An error document (RFC 9457) with its stable `code` and extension members. */
export type Problem = Schemas['Problem'];
export type ProblemCode = Problem['code'];
export type Scope = NonNullable<Problem['required_scope']>;

/** The identifiers a person can be looked up by; give one or more. */
export type PersonQuery = NonNullable<operations['lookupPersonV1']['parameters']['query']>;
/** The identifiers a company can be looked up by; give one or more. */
export type CompanyQuery = NonNullable<operations['lookupCompanyV1']['parameters']['query']>;

/** A `/v1/people/search` body: filters (each a value or a list of any-of values) and/or `q`, size, cursor, fields. */
export type PeopleSearchRequest = Schemas['PeopleSearchRequest'];
/** A page of people: the total, the results and the cursor of the next page (null on the last). */
export type PeopleSearchPage = Schemas['PeopleSearchPage'];
/** A person in search results: how they can be reached (never the details), who and where they are. */
export type PersonSearchResult = Schemas['PersonPreviewV1'];
/** A `/v1/company/search` body. */
export type CompanySearchRequest = Schemas['CompanySearchRequest'];
/** A page of companies. */
export type CompanySearchPage = Schemas['CompanySearchPage'];
/** A company in search results. */
export type CompanySearchResult = Schemas['CompanyPreview'];
/** A change to the store of record, as the feed lists it: `id`, `type`, `timestamp` and the type's `data`. */
export type ChangeEvent = Schemas['ChangeEvent'];
/** An event type of the feed: `person.job_changed`, say. */
export type ChangeEventType = ChangeEvent['type'];
/** A page of the feed: its events, the cursor of the next page, and whether more are there now. */
export type ChangesPage = Schemas['ChangesPage'];
/** What to read of the feed: after a page's `next`, of these types only, how many, how long to wait. */
export type ChangesQuery = Omit<NonNullable<operations['listChanges']['parameters']['query']>, 'types'> & {
  types?: ChangeEventType[];
};
/** How `changesAll` goes on once caught up. */
export interface ChangesFollow {
  /** Keep long-polling for new events (until the call's signal aborts) rather than end. */
  follow?: boolean;
  /** Told each page's `next`, once its events have been yielded: where to resume. */
  onPage?: (next: string) => void;
}
/** One item of a bulk lookup: the identifiers, as for a single lookup, and a reference of your own. */
export interface BulkItem<Query> {
  params: Query;
  /** Echoed in the item's result (at most 256 characters). */
  ref?: string;
}
/** A person bulk item's result: its record, or the problem its single lookup would have answered. */
export type PeopleBulkResult = Schemas['PeopleBulkResult'];
/** A company bulk item's result. */
export type CompanyBulkResult = Schemas['CompanyBulkResult'];
/** How many items ended each way. */
export type BulkSummary = Schemas['BulkSummary'];
/** What a bulk helper resolves to: every item's result, in the order given, and the counts. */
export interface BulkAnswer<Result> {
  results: Result[];
  summary: BulkSummary;
}

/** A key's settings and state, as the admin API lists it: never its token. */
export type AdminKey = Schemas['AdminKey'];
/** Every key. */
export type KeyList = Schemas['KeyList'];
/** A key and its usage this month. */
export type AdminKeyReport = Schemas['AdminKeyReport'];
/** A key created or rotated, with the token shown this once. */
export type IssuedKey = Schemas['IssuedKey'];
/** A new key's settings: `name`, and optionally scopes, rate, quota, expires_at. */
export type KeyCreate = Schemas['KeyCreate'];
/** The settings to change. */
export type KeyChanges = Schemas['KeyChanges'];
/** A rotation's grace period. */
export type KeyRotate = Schemas['KeyRotate'];
/** Usage series per key and operation. */
export type UsageSeriesPage = Schemas['UsageSeriesPage'];
export type AdminUsageQuery = NonNullable<operations['adminUsage']['parameters']['query']>;
/** A page of audited lookups. */
export type AuditPage = Schemas['AuditPage'];
export type AdminAuditQuery = NonNullable<operations['adminAudit']['parameters']['query']>;
/** An entity and identifiers by their lookup parameter names. */
export type SuppressionRequest = Schemas['SuppressionRequest'];
/** What a suppression deleted. */
export type SuppressionResult = Schemas['SuppressionResult'];
export type AdminSuppressionQuery = NonNullable<operations['adminUnsuppress']['parameters']['query']>;
/** The store's figures. */
export type StoreStats = Schemas['StoreStats'];
/** A watchlist: its id, name and how many entries it holds. */
export type Watchlist = Schemas['Watchlist'];
/** A list job: its progress, and why it failed if it did. */
export type ListJob = Schemas['ListJob'];
export type ListPage = Schemas['ListPage'];
/** An entry to watch: a person or a company, found by the parameters its lookup takes, and a ref of your own. */
export type WatchEntryRequest = Schemas['WatchEntryRequest'];
/** An entry's result: `watching` with the id found, or the problem its lookup would have answered. */
export type WatchEntryResult = Schemas['WatchEntryResult'];
/** What adding a chunk of entries answers: every entry's result, and the watchlist's size after. */
export type WatchEntriesResponse = Schemas['WatchEntriesResponse'];
/** An entry as listed: its id (to delete it), what it watches and its ref. */
export type WatchEntry = Schemas['WatchEntry'];
/** A page of entries and the `after` of the next. */
export type WatchEntryPage = Schemas['WatchEntryPage'];
/** A webhook endpoint: where events of which types are POSTed, and whether it is enabled. */
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
/** An endpoint and its `whsec_` secret, as made or rotated: the secret appears only here. */
export type WebhookSecret = Schemas['WebhookSecret'];
/** What makes an endpoint: its URL and event types, a watchlist and a description if you like. */
export type CreateWebhook = Schemas['CreateWebhook'];
/** What changes an endpoint: any of url, types, watchlist, description, disabled. */
export type ChangeWebhook = Schemas['ChangeWebhook'];
/** One delivery of one event to an endpoint, with its attempts. */
export type WebhookDelivery = Schemas['WebhookDelivery'];
/** A page of an endpoint's deliveries. */
export type WebhookDeliveries = Schemas['WebhookDeliveries'];
/** How a test delivery went. */
export type WebhookTest = Schemas['WebhookTest'];
/** Which deliveries to list: by status, after a delivery id, how many. */
export type WebhookDeliveryQuery = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>;
