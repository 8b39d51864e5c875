// The keys role (src/store/keys.ts) on every backend: keys created, found by any hash they had, updated, revoked.
import { describeOnEveryBackend } from './backends.js';
import { keysContract } from './contract/keys.js';

describeOnEveryBackend('keys', (store) => keysContract(store));
