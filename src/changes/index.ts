// Change events: their types (contract §8) and the pure classifier every store write runs.

export { SENIORITY_ORDER } from '../vocabulary/seniorities.js';
export {
  type Body,
  type Classification,
  classifyChange,
  type RecordChange,
  type RecordWrite,
} from './classify.js';
export * from './events.js';
export { isPromotion, seniorityRank } from './seniority.js';
