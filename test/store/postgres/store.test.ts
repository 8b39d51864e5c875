// The PostgreSQL backend runs the shared Store contract against the machine's real PostgreSQL.
import { afterAll, beforeAll } from 'vitest';
import { openPostgresStore } from '../../../src/store/postgres/store.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/pg-database.js';
import { describeStoreContract } from '../contract.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

describeStoreContract('postgres', async () => {
  await database.truncate();
  return openPostgresStore({ url: database.url, poolSize: 4 });
});
