// The import/export pipeline behind `enrich import`, `enrich export` and the demo loader.
export { exportTo } from './export.js';
export {
  DEFAULT_BATCH_SIZE,
  type ImportOptions,
  type ImportProgress,
  type ImportSummary,
  importFile,
  type Rejection,
} from './import.js';
