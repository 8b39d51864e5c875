// The accounting role (src/store/accounting.ts) on every backend: quota, usage, the audit log, the journal.
import { describeOnEveryBackend } from './backends.js';
import { accountingContract } from './contract/accounting.js';

describeOnEveryBackend('accounting', (store) => accountingContract(store));
