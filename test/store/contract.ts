// The whole Store contract, every role's suite in turn, for a store opened some other way (a restored backup).
import { describe } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { describeContract } from './backends.js';
import { accountingContract } from './contract/accounting.js';
import { healthContract } from './contract/health.js';
import { keysContract } from './contract/keys.js';
import { listsContract } from './contract/lists.js';
import { recordsContract } from './contract/records.js';
import { searchContract } from './contract/search.js';
import { suppressionContract } from './contract/suppression.js';
import { watchlistsContract } from './contract/watchlists.js';

/** Runs every role's contract against a backend; `open` must return an empty store each time. */
export function describeStoreContract(
  name: string,
  open: () => Promise<Store>,
  cleanup?: () => Promise<void>,
) {
  describeContract(`${name} store contract`, { open, cleanup }, (store) => {
    describe('records', () => recordsContract(store));
    describe('search', () => searchContract(store));
    describe('keys', () => keysContract(store));
    describe('accounting', () => accountingContract(store));
    describe('suppression', () => suppressionContract(store));
    describe('watchlists', () => watchlistsContract(store));
    describe('lists', () => listsContract(store));
    describe('health', () => healthContract(store));
    // The webhooks contract wants a store of its own per test (test/store/webhooks.test.ts gives each
    // backend one); over this one shared store its endpoints and deliveries would pile up between tests.
  });
}
