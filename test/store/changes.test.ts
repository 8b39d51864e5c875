// The change-log role (src/store/changes.ts) on every backend: events appended with the writes, in order.
import { describeOnEveryBackend } from './backends.js';
import { changesContract } from './contract/changes.js';

describeOnEveryBackend('changes', (store) => changesContract(store));
