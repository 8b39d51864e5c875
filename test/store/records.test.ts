// The records role (src/store/records.ts) on every backend: lookups by id and identifier, upserts, bulk loads,
// deletes, exports.
import { describeOnEveryBackend } from './backends.js';
import { recordsContract } from './contract/records.js';

describeOnEveryBackend('records', (store) => recordsContract(store));
