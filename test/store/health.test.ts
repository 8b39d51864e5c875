// The health role (src/store/health.ts) on every backend: readiness.
import { describeOnEveryBackend } from './backends.js';
import { healthContract } from './contract/health.js';

describeOnEveryBackend('health', (store) => healthContract(store));
