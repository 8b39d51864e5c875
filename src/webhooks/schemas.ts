// Webhook endpoints and their deliveries as the API shows them (contract §8), and what creating one takes (TypeBox;
// here rather than in schemas/, which lies below the change events whose types they list).
import { type Static, Type } from '@sinclair/typebox';
import { CHANGE_EVENT_TYPES } from '../changes/events.js';

const EventTypes = Type.Array(Type.Unsafe<string>({ type: 'string', enum: [...CHANGE_EVENT_TYPES] }), {
  minItems: 1,
  maxItems: CHANGE_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'The event types delivered',
});
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'The absolute http or https URL the events are POSTed to, without a user name or password. A host ' +
    'that is an IP address is refused (400) when it is loopback, private, link-local, multicast, unspecified ' +
    'or reserved — 0.0.0.0/8, 10.0.0.0/8, 100.64.0.0/10, 127.0.0.0/8, 169.254.0.0/16, 172.16.0.0/12, ' +
    '192.0.0.0/24, 192.168.0.0/16, 198.18.0.0/15, 224.0.0.0/4, 240.0.0.0/4, ::, ::1, ::ffff:0:0/96 ' +
    '(IPv4-mapped), 64:ff9b::/96 (NAT64), fc00::/7, fe80::/10, fec0::/10, ff00::/8 — unless the server ' +
    'runs with ENRICH_WEBHOOK_ALLOW_PRIVATE=true. A host name is checked on each delivery instead, on ' +
    'every address it resolves to',
});
const Watchlist = Type.String({ minLength: 1, maxLength: 64, description: "Only this watchlist's events" });
const Description = Type.String({ maxLength: 500 });
const Time = Type.String({ description: 'ISO-8601, UTC' });
const orNull = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ examples: ['wh_4kq2m9x7c1d8e3f5'] }),
    url: Url,
    types: EventTypes,
    watchlist: orNull(Watchlist),
    description: orNull(Description),
    disabled: Type.Boolean(),
    disabled_reason: Type.Union(
      [Type.Literal('manual'), Type.Literal('gone'), Type.Literal('failing'), Type.Null()],
      { description: 'manual: by its owner; gone: it answered 410; failing: nothing delivered for 5 days' },
    ),
    created_at: Time,
  },
  { $id: 'WebhookEndpoint', title: 'WebhookEndpoint', additionalProperties: false },
);
export type WebhookEndpointView = Static<typeof WebhookEndpoint>;

export const WebhookSecret = Type.Object(
  {
    endpoint: Type.Ref('WebhookEndpoint'),
    secret: Type.String({
      description: 'whsec_…: verifies deliveries (Standard Webhooks); shown only in this answer',
      examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    }),
  },
  { $id: 'WebhookSecret', title: 'WebhookSecret', additionalProperties: false },
);

export const WebhookEndpoints = Type.Object(
  { data: Type.Array(Type.Ref('WebhookEndpoint')) },
  { $id: 'WebhookEndpoints', title: 'WebhookEndpoints', additionalProperties: false },
);

export const WebhookAttempt = Type.Object(
  {
    at: Time,
    status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'null: no answer' }),
    duration_ms: Type.Integer({ minimum: 0 }),
    error: Type.Union([Type.String(), Type.Null()]),
    response: Type.Union([Type.String(), Type.Null()], { description: "The answer's first 1 KB" }),
  },
  { $id: 'WebhookAttempt', title: 'WebhookAttempt', additionalProperties: false },
);

/** POST /v1/webhooks/{id}/test. */
export const WebhookTest = Type.Object(
  {
    delivery_id: Type.String(),
    event_id: Type.String({ examples: ['evt_test_9f2c4e1a7b3d5c60'] }),
    attempt: Type.Ref('WebhookAttempt'),
  },
  { $id: 'WebhookTest', title: 'WebhookTest', additionalProperties: false },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ examples: ['whd_1042'] }),
    endpoint_id: Type.String(),
    event_id: Type.String({ description: "The event's id: every attempt's webhook-id" }),
    event_type: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Array(Type.Ref('WebhookAttempt')),
    next_attempt_at: Type.Union([Time, Type.Null()]),
    created_at: Time,
  },
  { $id: 'WebhookDelivery', title: 'WebhookDelivery', additionalProperties: false },
);

export const WebhookDeliveries = Type.Object(
  {
    data: Type.Array(Type.Ref('WebhookDelivery')),
    next: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` for the next page' }),
    has_more: Type.Boolean(),
  },
  { $id: 'WebhookDeliveries', title: 'WebhookDeliveries', additionalProperties: false },
);

/** POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry: the delivery, pending again. */
export const WebhookRetry = Type.Object(
  {
    id: Type.String({ examples: ['whd_1042'] }),
    status: Type.Literal('pending', { description: 'Due now: the dispatcher attempts it next' }),
  },
  { $id: 'WebhookRetry', title: 'WebhookRetry', additionalProperties: false },
);

/** POST /v1/webhooks. */
export const CreateWebhook = Type.Object(
  {
    url: Url,
    types: EventTypes,
    watchlist: Type.Optional(Watchlist),
    description: Type.Optional(Description),
  },
  { $id: 'CreateWebhook', title: 'CreateWebhook', additionalProperties: false },
);
export type CreateWebhook = Static<typeof CreateWebhook>;

/** PATCH /v1/webhooks/{id}: a null watchlist or description removes it. */
export const ChangeWebhook = Type.Object(
  {
    url: Type.Optional(Url),
    types: Type.Optional(EventTypes),
    watchlist: Type.Optional(orNull(Watchlist)),
    description: Type.Optional(orNull(Description)),
    disabled: Type.Optional(Type.Boolean()),
  },
  { $id: 'ChangeWebhook', title: 'ChangeWebhook', additionalProperties: false, minProperties: 1 },
);
export type ChangeWebhook = Static<typeof ChangeWebhook>;

export const WEBHOOK_SCHEMAS = [
  WebhookEndpoint,
  WebhookSecret,
  WebhookEndpoints,
  WebhookAttempt,
  WebhookTest,
  WebhookDelivery,
  WebhookDeliveries,
  WebhookRetry,
  CreateWebhook,
  ChangeWebhook,
];
