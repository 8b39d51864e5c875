// The admin's overview of the store: records per entity, its size, and the change log and webhook deliveries
// when the store keeps them (guarded by what it offers: older stores answer null).
import type { ChangeBounds } from '../store/changes.js';
import type { HealthStore } from '../store/health.js';
import type { RecordStore } from '../store/records.js';
import { ENTITIES } from '../vocabulary/entities.js';

type StatsStore = Pick<RecordStore, 'count'> & Pick<HealthStore, 'sizeBytes'>;

/** What a store offers beyond the roles every one has: the change log's bounds (contract §8). */
interface WithChanges {
  changeBounds(): Promise<ChangeBounds>;
}

const offersChanges = (store: object): store is WithChanges =>
  typeof (store as Partial<WithChanges>).changeBounds === 'function';

export async function storeStats(store: StatsStore) {
  const records: Record<string, number> = {};
  for (const entity of ENTITIES) records[entity] = await store.count(entity);
  const events = offersChanges(store) ? await store.changeBounds() : null;
  return {
    records,
    store_bytes: await store.sizeBytes(),
    // Imports and refreshes are not recorded by the store yet, nor webhook deliveries: null until they are.
    last_import: null,
    last_refresh: null,
    events: events && {
      first: events.first,
      last: events.last,
      count: events.last === 0 ? 0 : events.last - events.first + 1,
    },
    deliveries: null,
  };
}
