// The import/export pipeline behind `enrich import`, `enrich export` and the demo loader.
export { likelyEntity } from './entity-guess.js';
export { exportTo } from './export.js';
export { limitHeapGrowth } from './heap-growth.js';
export {
  DEFAULT_BATCH_SIZE,
  type ImportOptions,
  type ImportProgress,
  type ImportSummary,
  importFile,
  type Rejection,
} from './import.js';
export { ImportInterruptedError } from './interrupted.js';
export {
  DEFAULT_MAX_REMOVE_PERCENT,
  refreshSnapshot,
  type SnapshotOptions,
  SnapshotRefusedError,
  type SnapshotSummary,
} from './snapshot.js';
