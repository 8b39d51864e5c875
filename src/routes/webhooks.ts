// /v1/webhooks…: a key's webhook endpoints and their deliveries (contract §8). Reading takes changes:read
// (or changes:write), changing takes changes:write; a key sees only its own, another's id is a 404.
import type { FastifyInstance, FastifySchema } from 'fastify';
import { ProblemError } from '../errors.js';
import { headers, KEYED, responseRef } from '../openapi/components.js';
import type { Responses } from '../openapi/document.js';
import type { DeliveryStatus } from '../store/webhooks.js';
import type { Scope } from '../vocabulary/operations.js';
import type { Delivering } from '../webhooks/deliver.js';
import {
  changeEndpoint,
  createEndpoint,
  type EndpointRules,
  endpointView,
  ownEndpoint,
  rotateSecret,
  sendTestEvent,
} from '../webhooks/endpoints.js';
import type { ChangeWebhook, CreateWebhook } from '../webhooks/schemas.js';

export interface WebhookDeps {
  delivering: Delivering;
  rules: EndpointRules;
  /** The change log's last sequence number: where a new endpoint's deliveries start. */
  logEnd: () => Promise<number>;
  /** Tells this process's dispatcher there may be something to deliver (none in a cluster's workers). */
  wake?: (() => void) | undefined;
}

const READ: readonly Scope[] = ['changes:read', 'changes:write'];
const WRITE: readonly Scope[] = ['changes:write'];

const json = (description: string, schema: string) => ({
  description,
  headers: headers(...KEYED),
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
});

/** The responses of a webhook operation: its own, and the refusals every keyed one may answer. */
const responses = (ok: Record<string, object>): Responses => ({
  ...ok,
  400: responseRef('WebhookBadRequest'),
  401: responseRef('Unauthorized'),
  403: responseRef('Forbidden'),
  404: responseRef('WebhookNotFound'),
  429: responseRef('RateLimited'),
  '4XX': responseRef('UnreadableRequest'),
  500: responseRef('InternalError'),
  503: responseRef('Unavailable'),
});

const IdParams = {
  type: 'object',
  properties: { id: { type: 'string', maxLength: 64 } },
  required: ['id'],
} as const;

const schema = (operationId: string, summary: string, more: FastifySchema): FastifySchema => ({
  operationId,
  summary,
  tags: ['webhooks'],
  ...more,
});

export function registerWebhooks(app: FastifyInstance, deps: WebhookDeps) {
  const { delivering, rules } = deps;
  const store = delivering.store;

  app.keyedRoute(
    {
      method: 'POST',
      url: '/v1/webhooks',
      scopes: WRITE,
      schema: schema('createWebhook', 'Make an endpoint that receives the events of the given types', {
        body: { $ref: 'CreateWebhook#' },
        'x-responses': responses({
          201: json('The endpoint, and its secret: shown only here', 'WebhookSecret'),
        }),
      }),
    },
    async (request, reply, { key }) => {
      const body = request.body as CreateWebhook;
      const made = await createEndpoint(store, rules, key.id, body, await deps.logEnd());
      reply.code(201);
      return { endpoint: endpointView(made.endpoint), secret: made.secret };
    },
  );

  app.keyedRoute(
    {
      method: 'GET',
      url: '/v1/webhooks',
      scopes: READ,
      schema: schema('listWebhooks', "The calling key's endpoints, oldest first", {
        'x-responses': responses({ 200: json('The endpoints', 'WebhookEndpoints') }),
      }),
    },
    async (_request, _reply, { key }) => ({ data: (await store.listEndpoints(key.id)).map(endpointView) }),
  );

  app.keyedRoute(
    {
      method: 'GET',
      url: '/v1/webhooks/:id',
      scopes: READ,
      schema: schema('getWebhook', 'One of the calling key’s endpoints', {
        params: IdParams,
        'x-responses': responses({ 200: json('The endpoint', 'WebhookEndpoint') }),
      }),
    },
    async (request, _reply, { key }) =>
      endpointView(await ownEndpoint(store, key.id, (request.params as { id: string }).id)),
  );

  app.keyedRoute(
    {
      method: 'PATCH',
      url: '/v1/webhooks/:id',
      scopes: WRITE,
      schema: schema(
        'updateWebhook',
        'Change an endpoint’s url, types, watchlist, description, or disable it',
        {
          params: IdParams,
          body: { $ref: 'ChangeWebhook#' },
          'x-responses': responses({ 200: json('The endpoint as changed', 'WebhookEndpoint') }),
        },
      ),
    },
    async (request, _reply, { key }) => {
      const { id } = request.params as { id: string };
      const changed = await changeEndpoint(store, rules, key.id, id, request.body as ChangeWebhook);
      if (!changed.disabled) deps.wake?.();
      return endpointView(changed);
    },
  );

  app.keyedRoute(
    {
      method: 'DELETE',
      url: '/v1/webhooks/:id',
      scopes: WRITE,
      schema: schema('deleteWebhook', 'Remove an endpoint and its deliveries', {
        params: IdParams,
        'x-responses': responses({ 204: { description: 'Removed', headers: headers(...KEYED) } }),
      }),
    },
    async (request, reply, { key }) => {
      const { id } = request.params as { id: string };
      await ownEndpoint(store, key.id, id);
      await store.deleteEndpoint(id);
      reply.code(204);
      return undefined;
    },
  );

  app.keyedRoute(
    {
      method: 'POST',
      url: '/v1/webhooks/:id/rotate-secret',
      scopes: WRITE,
      schema: schema('rotateWebhookSecret', 'A new secret; the old one still signs for 24 hours', {
        params: IdParams,
        'x-responses': responses({
          200: json('The endpoint and its new secret: shown only here', 'WebhookSecret'),
        }),
      }),
    },
    async (request, _reply, { key }) => {
      const rotated = await rotateSecret(store, key.id, (request.params as { id: string }).id);
      return { endpoint: endpointView(rotated.endpoint), secret: rotated.secret };
    },
  );

  app.keyedRoute(
    {
      method: 'POST',
      url: '/v1/webhooks/:id/test',
      scopes: WRITE,
      schema: schema('testWebhook', 'Deliver a `webhook.test` event now, and say how it went', {
        params: IdParams,
        'x-responses': responses({ 200: json('The delivery and its attempt', 'WebhookTest') }),
      }),
    },
    async (request, _reply, { key }) =>
      sendTestEvent(delivering, key.id, (request.params as { id: string }).id),
  );

  app.keyedRoute(
    {
      method: 'GET',
      url: '/v1/webhooks/:id/deliveries',
      scopes: READ,
      schema: schema('listWebhookDeliveries', 'An endpoint’s deliveries, oldest first, with their attempts', {
        params: IdParams,
        querystring: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
            after: { type: 'string', pattern: '^whd_[1-9][0-9]{0,15}$' },
            limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
          },
          additionalProperties: false,
        },
        'x-responses': responses({ 200: json('A page of deliveries', 'WebhookDeliveries') }),
      }),
    },
    async (request, _reply, { key }) => {
      const { id } = request.params as { id: string };
      const query = request.query as { status?: DeliveryStatus; after?: string; limit: number };
      await ownEndpoint(store, key.id, id);
      const rows = await store.listDeliveries(id, { ...query, limit: query.limit + 1 });
      const data = rows.slice(0, query.limit);
      return { data, next: data.at(-1)?.id ?? null, has_more: rows.length > query.limit };
    },
  );

  app.keyedRoute(
    {
      method: 'POST',
      url: '/v1/webhooks/:id/deliveries/:delivery_id/retry',
      scopes: WRITE,
      schema: schema('retryWebhookDelivery', 'Attempt a delivery again now, whatever its status', {
        params: {
          type: 'object',
          properties: {
            id: { type: 'string', maxLength: 64 },
            delivery_id: { type: 'string', maxLength: 64 },
          },
          required: ['id', 'delivery_id'],
        },
        'x-responses': responses({
          202: json('The delivery, pending again and due now', 'WebhookRetry'),
        }),
      }),
    },
    async (request, reply, { key }) => {
      const { id, delivery_id: deliveryId } = request.params as { id: string; delivery_id: string };
      await ownEndpoint(store, key.id, id);
      if (!(await store.retryDelivery(id, deliveryId, new Date()))) {
        throw new ProblemError('not_found', `There is no delivery ${deliveryId} to this endpoint.`);
      }
      deps.wake?.();
      reply.code(202);
      return { id: deliveryId, status: 'pending' };
    },
  );
}
