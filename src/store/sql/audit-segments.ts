// What both stores' audit logs share since they keep segments (./audit-segment.ts): cutting a fold's entries
// into segments, the record index's buckets, and a query's walk through segments in time order.
import type { AuditEntry, AuditFilter, AuditRow } from '../accounting.js';
import { auditBounds, splitList } from './audit.js';
import {
  entryMs,
  type PackedEntry,
  type PackedSegment,
  packSegment,
  SEGMENT_SPAN_MS,
  type SegmentFilter,
  segmentRuns,
  unpackSegment,
} from './audit-segment.js';
import type { Spelling } from './spelling.js';

/** A segment as a query orders it: its id and its last entry's time; its body when read with them. */
export interface SegmentTimes {
  id: number;
  last_at: number;
  body?: Buffer;
}

/** An entry with its place in the log: time, then segment, then place in it, orders the log. */
interface Placed extends PackedEntry {
  segment: number;
}

const oldestFirst = (a: Placed, b: Placed) => a.atMs - b.atMs || a.segment - b.segment || a.index - b.index;
const newestFirst = (a: Placed, b: Placed) => oldestFirst(b, a);

const toEntry = (e: Placed): AuditEntry => ({
  at: new Date(e.atMs).toISOString(),
  key_id: e.key_id,
  operation: e.operation as AuditEntry['operation'],
  params: splitList(e.params),
  matched: splitList(e.matched),
  status: e.status,
});

/** A fold's entries as the segments they are kept in, in order. */
export function packRows(rows: AuditRow[]): PackedSegment[] {
  const atMs = rows.map((row) => row.atMs);
  return segmentRuns(atMs).map(([start, end]) => packSegment(rows.slice(start, end), atMs.slice(start, end)));
}

/**
 * A segment that straddles a pruning time, without its entries before it: packed again, and how many went. Its
 * last time stays (its last entry is kept), so its rows in the time and key indexes stay right.
 */
export function withoutEntriesBefore(
  body: Buffer,
  before: number,
): { packed: PackedSegment; pruned: number } {
  const entries = unpackSegment(body);
  const kept = entries.filter((e) => e.atMs >= before);
  const packed = packSegment(
    kept,
    kept.map((e) => e.atMs),
  );
  return { packed, pruned: entries.length - kept.length };
}

/** A query of the log as the segments' reader needs it: the earliest time in milliseconds, the order, the limit. */
export function segmentQuery(s: Spelling, filter: AuditFilter) {
  const bounds = auditBounds(s, filter);
  const since =
    bounds.since === '' || bounds.since === '-infinity' ? -Number.MAX_SAFE_INTEGER : entryMs(bounds.since);
  return {
    since,
    limit: bounds.limit,
    newest: filter.newestFirst === true,
    filter: { since, keyId: filter.keyId, recordId: filter.recordId } satisfies SegmentFilter,
  };
}

/** Segments a query by record found, in the order `collect` reads them. */
export const inReadingOrder = (segments: SegmentTimes[], newest: boolean) =>
  newest
    ? segments.sort((a, b) => b.last_at - a.last_at || b.id - a.id)
    : segments.sort((a, b) => a.last_at - b.last_at || a.id - b.id);

/**
 * The entries of `segments` (in order of their last entry's time, newest first or last) that pass `filter`, in
 * the log's order, at most `limit`. Reading stops at a segment that cannot hold one that orders before the last
 * of `limit` already found (oldest first: one whose entries are all later, a segment spanning SEGMENT_SPAN_MS at
 * most). `body` reads a segment's body when the segments come without it.
 */
export async function collectAudit(
  segments: Iterable<SegmentTimes> | AsyncIterable<SegmentTimes>,
  q: { newest: boolean; limit: number; filter: SegmentFilter },
  body: (id: number) => Buffer | undefined | Promise<Buffer | undefined>,
): Promise<AuditEntry[]> {
  const order = q.newest ? newestFirst : oldestFirst;
  let found: Placed[] = [];
  for await (const segment of segments) {
    if (found.length >= q.limit) {
      found.sort(order);
      found.length = q.limit;
      const last = found[q.limit - 1]!.atMs;
      if (q.newest ? last > segment.last_at : last < segment.last_at - SEGMENT_SPAN_MS) break;
    }
    const bytes = segment.body ?? (await body(segment.id));
    if (bytes === undefined) continue;
    for (const entry of unpackSegment(bytes, q.filter)) found.push({ ...entry, segment: segment.id });
  }
  found.sort(order);
  if (found.length > q.limit) found = found.slice(0, q.limit);
  return found.map(toEntry);
}
