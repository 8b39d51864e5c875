// The suppression role of the store: records removed for good, and the identifier hashes that keep them out.
import type { Entity } from '../vocabulary/entities.js';

export interface SuppressionStore {
  /**
   * In one transaction: deletes the records (as a record write, see RecordStore) and remembers the hashes
   * as one suppression (see src/privacy/suppression.ts). Returns how many records existed.
   */
  suppress(entity: Entity, recordIds: string[], hashes: string[]): Promise<number>;
  /** Forgets every suppression that holds this hash; returns how many hashes were removed. */
  unsuppress(entity: Entity, hash: string): Promise<number>;
  /** Every suppressed hash of an entity. */
  suppressedHashes(entity: Entity): Promise<Set<string>>;
}
