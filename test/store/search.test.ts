// The search role (src/store/search.ts) on every backend: filters, words, ranks and pages, in step with writes.
import { describeOnEveryBackend } from './backends.js';
import { searchContract } from './contract/search.js';

describeOnEveryBackend('search', (store) => searchContract(store));
