// The watchlists role (src/store/watchlists.ts) on every backend.
import { describeOnEveryBackend } from './backends.js';
import { watchlistsContract } from './contract/watchlists.js';

describeOnEveryBackend('watchlists', (store) => watchlistsContract(store));
