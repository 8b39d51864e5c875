// The lists role (src/store/lists.ts) on every backend.
import { describeOnEveryBackend } from './backends.js';
import { listsContract } from './contract/lists.js';

describeOnEveryBackend('lists', (store) => listsContract(store));
