// A test app over a SQLite file (and its serving index) or PostgreSQL, with a few hand-written records and keys.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type AppDeps, buildApp } from '../../src/app.js';
import { issueKey, type KeyRequest } from '../../src/auth/keys.js';
import { Invalid, prepareLine } from '../../src/ingest/prepare.js';
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';
import type { Entity } from '../../src/vocabulary/entities.js';
import { createTestDatabase } from './pg-database.js';

export const PEOPLE = [
  {
    id: 'fp000000000001',
    name: 'Jane Citizen',
    middle_name: null,
    linkedin: 'https://www.linkedin.com/in/jane-citizen',
    emails: {
      work: [
        { value: 'jane.citizen@acme.com.au', deliverability: 'Deliverable' },
        { value: 'info@acme.com.au', deliverability: 'Deliverable' },
      ],
      personal: [{ value: 'jane@gmail.com', deliverability: 'Deliverable' }],
    },
    social_media: { github: { handle: 42, connections: '500+', followers: 10, stars: 3 } },
  },
  {
    id: 'fp000000000002',
    name: 'José García',
    linkedin: 'https://www.linkedin.com/in/josé-garcía',
    emails: { work: [{ value: 'jose@acme.com.au' }, { value: 'info@acme.com.au' }] },
  },
  { id: 'fp000000000003', name: 'Sam Lee', emails: { personal: [{ value: 'sam.lee@outlook.com' }] } },
];

export const COMPANIES = [
  {
    id: 'f000000000001',
    name: 'Acme Holdings',
    website: 'https://www.acme.com.au',
    fqdn: 'acme.com.au',
    linkedin: 'acme-holdings',
    industry_codes: { abn: '51824753556', acn: '004085616' },
    au_employee_count: null,
  },
  { id: 'f000000000002', name: 'Shop Acme', fqdn: 'shop.other.com.au', linkedin: 'shop-other' },
];

/** Someone to match by name at Acme (not among PEOPLE): first and last name, and a current company. */
export const ROBERT = {
  id: 'fp000000000009',
  name: 'Robert Example',
  first_name: 'Robert',
  last_name: 'Example',
  current_company: { id: 'f000000000001', name: 'Acme Holdings', website: 'https://www.acme.com.au' },
};

export async function seed(store: Store, entity: Entity, records: object[]) {
  const prepared = records.map((r) => prepareLine(entity, JSON.stringify(r)));
  for (const p of prepared) if (p instanceof Invalid) throw new Error(`${p.path}: ${p.message}`);
  await store.upsert(entity, prepared as Exclude<(typeof prepared)[number], Invalid>[]);
}

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  token: string;
  keyId: string;
  /** Issues another key and returns its bearer header. */
  newKey(request?: Partial<KeyRequest>): Promise<{ auth: string; id: string; token: string }>;
  auth: string;
  /** Closes the app, then the store it does not own. */
  close(): Promise<void>;
}

/** The backends every HTTP suite runs against: the embedded default and the real PostgreSQL. */
export const BACKENDS = ['sqlite', 'postgres'] as const;
export type Backend = (typeof BACKENDS)[number];

/** An empty store of the backend; PostgreSQL gets a throwaway database, dropped on close. */
async function emptyStore(backend: Backend): Promise<{ store: Store; dispose(): Promise<void> }> {
  if (backend === 'sqlite') {
    // A file, as a server has it: lookups read the serving index beside it.
    const dir = mkdtempSync(join(tmpdir(), 'enrich-app-'));
    const store = openSqliteStore(join(dir, 'enrich.db'));
    return {
      store,
      dispose: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const database = await createTestDatabase();
  const store = await openPostgresStore({ url: database.url });
  return {
    store,
    dispose: async () => {
      await store.close();
      await database.drop();
    },
  };
}

/** A test app on SQLite with ROBERT too, listening on a free port of 127.0.0.1: for a CLI to talk to. */
export async function listeningApp(): Promise<TestApp & { url: string }> {
  const t = await testApp('sqlite');
  await seed(t.store, 'people', [ROBERT]);
  return { ...t, url: await t.app.listen({ port: 0, host: '127.0.0.1' }) };
}

/** A test app over the hand-written records; `deps` adds settings (CORS origins, say). */
export async function testApp(
  backend: Backend = 'sqlite',
  deps: Omit<Partial<AppDeps>, 'store'> = {},
): Promise<TestApp> {
  const { store, dispose } = await emptyStore(backend);
  await seed(store, 'people', PEOPLE);
  await seed(store, 'companies', COMPANIES);
  const app = await buildApp({ ...deps, store });
  const newKey = async (request: Partial<KeyRequest> = {}) => {
    const { key, token } = await issueKey(store, { name: 'test', rate: 1000, ...request });
    return { auth: `Bearer ${token}`, id: key.id, token };
  };
  const main = await newKey();
  const close = async () => {
    await app.close();
    await dispose();
  };
  return { app, store, token: main.token, keyId: main.id, newKey, auth: main.auth, close };
}
