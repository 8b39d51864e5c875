// /v1/admin/keys: list, create, show, change, rotate and revoke keys as `enrich keys` does; a token appears
// once, in the answer that made it, and no answer holds a hash.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Accounting } from '../accounting/accounting.js';
import { keyReport, listedKey } from '../admin/key-report.js';
import { createKey, knownKey, revoke, rotate, updateKey } from '../admin/keys.js';
import type { Store } from '../store/store.js';
import {
  ADMIN_SCOPES,
  adminResponses,
  adminSchema,
  jsonAnswer,
  keyIdParams,
  OWN_VALIDATION,
  queryOf,
} from './admin-docs.js';

export interface AdminKeysDeps {
  store: Store;
  /** Folded first, so that a key's report counts its latest lookups. */
  accounting: Accounting | undefined;
  /** The rate of a key created without one. */
  defaultRate: number | undefined;
}

type WithId = { Params: { id: string } };

export function registerAdminKeys(app: FastifyInstance, { store, accounting, defaultRate }: AdminKeysDeps) {
  const route = { scopes: ADMIN_SCOPES, ...OWN_VALIDATION };

  app.keyedRoute(
    {
      ...route,
      method: 'GET',
      url: '/v1/admin/keys',
      schema: adminSchema(
        { operationId: 'adminListKeys', summary: 'Every key: settings and state, never a token' },
        adminResponses({ 200: jsonAnswer('Every key, in the order they were created', 'KeyList') }),
      ),
    },
    async (request) => {
      queryOf(request, []);
      const now = new Date();
      return { keys: (await store.listKeys()).map((key) => listedKey(key, now)) };
    },
  );

  app.keyedRoute(
    {
      ...route,
      method: 'POST',
      url: '/v1/admin/keys',
      schema: adminSchema(
        {
          operationId: 'adminCreateKey',
          summary: 'Create a key; its token is in this answer, and never shown again',
          body: Type.Ref('KeyCreate'),
        },
        adminResponses({ 201: jsonAnswer('The key, with its token', 'IssuedKey') }),
      ),
    },
    async (request, reply) => {
      queryOf(request, []);
      const created = await createKey(store, request.body, defaultRate);
      reply.code(201);
      return created;
    },
  );

  app.keyedRoute(
    {
      ...route,
      method: 'GET',
      url: '/v1/admin/keys/:id',
      schema: adminSchema(
        {
          operationId: 'adminGetKey',
          summary: "A key's settings, state and usage this month",
          params: keyIdParams,
        },
        adminResponses({ 200: jsonAnswer('The key', 'AdminKeyReport') }, ['KeyNotFound']),
      ),
    },
    async (request) => {
      queryOf(request, []);
      const { id } = request.params as WithId['Params'];
      await accounting?.foldNow().catch((error: unknown) => {
        request.log.warn({ err: error }, 'admin key report: the journal could not be folded first');
      });
      return keyReport(store, await knownKey(store, id));
    },
  );

  app.keyedRoute(
    {
      ...route,
      method: 'PATCH',
      url: '/v1/admin/keys/:id',
      schema: adminSchema(
        {
          operationId: 'adminUpdateKey',
          summary: "Change a key's name, scopes, rate, quota or expiry; its token stays the same",
          params: keyIdParams,
          body: Type.Ref('KeyChanges'),
        },
        adminResponses({ 200: jsonAnswer('The key as changed', 'AdminKeyReport') }, [
          'KeyNotFound',
          'KeyRevoked',
        ]),
      ),
    },
    async (request) => {
      queryOf(request, []);
      const { id } = request.params as WithId['Params'];
      return updateKey(store, id, request.body);
    },
  );

  app.keyedRoute(
    {
      ...route,
      method: 'POST',
      url: '/v1/admin/keys/:id/rotate',
      schema: adminSchema(
        {
          operationId: 'adminRotateKey',
          summary: 'Give a key a new token (in this answer only); the old one works for the grace period',
          params: keyIdParams,
          body: Type.Ref('KeyRotate'),
        },
        adminResponses({ 200: jsonAnswer('The key, with its new token', 'IssuedKey') }, [
          'KeyNotFound',
          'KeyRevoked',
        ]),
      ),
    },
    async (request) => {
      queryOf(request, []);
      const { id } = request.params as WithId['Params'];
      return rotate(store, id, request.body);
    },
  );

  app.keyedRoute(
    {
      ...route,
      method: 'POST',
      url: '/v1/admin/keys/:id/revoke',
      schema: adminSchema(
        {
          operationId: 'adminRevokeKey',
          summary: 'Revoke a key: its next request answers 401',
          params: keyIdParams,
        },
        adminResponses({ 200: jsonAnswer('The key, revoked', 'AdminKeyReport') }, [
          'KeyNotFound',
          'KeyRevoked',
        ]),
      ),
    },
    async (request) => {
      queryOf(request, []);
      const { id } = request.params as WithId['Params'];
      return revoke(store, id);
    },
  );
}
