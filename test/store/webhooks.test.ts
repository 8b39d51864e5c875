// The webhooks role (src/store/webhooks.ts) on every backend: endpoints, deliveries, claims and the cursor.
import { describeOnEveryBackend } from './backends.js';
import { webhooksContract } from './contract/webhooks.js';

describeOnEveryBackend('webhooks', (store) => webhooksContract(store));
