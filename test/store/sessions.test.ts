// The sessions role (src/store/sessions.ts) on every backend.
import { describeOnEveryBackend } from './backends.js';
import { sessionsContract } from './contract/sessions.js';

describeOnEveryBackend('sessions', (store) => sessionsContract(store));
