// The bulk rows of `npm run bench`: records per second of bulks of 100 `id` lookups, per server core, beside
// the single `id` lookups of the same run (issue 12: ≥ 10× per core).
import { BULK_ITEMS } from './dataset.js';
import { cores, int, ms, table, times } from './format.js';
import type { Measured } from './loadgen.js';
import { BULK_ID, BULK_ID_UNACCOUNTED, UNACCOUNTED_ID } from './lookups.js';
import { type BenchResults, perCore, rps } from './results.js';
import { medianOf } from './stats.js';

/** Records per server core-second of bulk runs: their requests per core, times the items of each. */
const recordsPerCore = (runs: Measured[] | undefined) => perCore(runs) * BULK_ITEMS;

/** A bulk's records per core as a multiple of the single lookups' per core, each in the same run. */
export function bulkShare(r: BenchResults, bulk = BULK_ID, single = 'id'): number {
  return recordsPerCore(r.lookups.get(bulk)) / perCore(r.lookups.get(single));
}

export function bulkTable(r: BenchResults): string {
  const row = (label: string, bulk: string, single: string) => {
    const m = r.lookups.get(bulk) ?? [];
    return [
      label,
      int(rps(m)),
      int(rps(m) * BULK_ITEMS),
      ms(medianOf(m, (x) => x.p50Ms)),
      ms(medianOf(m, (x) => x.p99Ms)),
      cores(medianOf(m, (x) => x.serverCores)),
      int(recordsPerCore(m)),
      int(perCore(r.lookups.get(single))),
      times(bulkShare(r, bulk, single)),
      int(m.reduce((sum, x) => sum + x.non2xx + x.errors, 0)),
    ];
  };
  const header = [
    `bulk of ${BULK_ITEMS} people by \`id\` (POST /v1/people/bulk)`,
    'req/s',
    'records/s',
    'p50 ms',
    'p99 ms',
    'server cores',
    'records/s per server core',
    'single `id` req/s per server core',
    'bulk ÷ single, per core',
    'non-2xx',
  ];
  const rows = [
    row('audit and metering on', BULK_ID, 'id'),
    row('audit and metering off (against single lookups off)', BULK_ID_UNACCOUNTED, UNACCOUNTED_ID),
  ];
  return table(header, rows, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
}
