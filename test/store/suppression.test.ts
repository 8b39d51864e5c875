// The suppression role (src/store/suppression.ts) on every backend: records deleted for good, hashes kept.
import { describeOnEveryBackend } from './backends.js';
import { suppressionContract } from './contract/suppression.js';

describeOnEveryBackend('suppression', (store) => suppressionContract(store));
