// The match of a list: rows read in batches, looked up in chunks, written in input order with their outcomes,
// in memory bounded by the chunks in flight whatever the list's length.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { ListWriter } from './csv-writer.js';
import {
  type ListRow,
  MATCH_STATUSES,
  type MatchStatus,
  type Resolver,
  type RowOutcome,
  type RowParams,
} from './list.js';
import type { ListReader } from './reader.js';

export interface MatchCounts {
  rows: number;
  /** Rows by status; malformed rows count as `invalid` too. */
  byStatus: Record<MatchStatus, number>;
  malformed: number;
}

export interface MatchJob {
  reader: ListReader;
  /** A row's lookup parameters, as the list's mapping gives them. */
  paramsOf: (row: ListRow) => RowParams;
  resolver: Resolver;
  writer: ListWriter;
  /** Opened at the first write: nothing, not even a CSV header, is written before the first rows are answered. */
  out: { open(): Promise<Writable> };
  /** After each chunk written; the next is written once it has settled (a list job commits its progress). */
  onProgress?: (counts: MatchCounts) => void | Promise<void>;
  onMalformed?: (line: number, reason: string) => void;
}

interface Pending {
  rows: ListRow[];
  outcomes: RowOutcome[] | Promise<RowOutcome[]>;
}

async function write(out: Writable, text: string): Promise<void> {
  if (out.errored) throw out.errored;
  if (text.length > 0 && !out.write(text)) await once(out, 'drain');
}

/** Matches every row of the list and writes the output; returns the counts. */
export async function matchList(job: MatchJob): Promise<MatchCounts> {
  const { reader, paramsOf, resolver, writer } = job;
  const counts: MatchCounts = {
    rows: 0,
    byStatus: Object.fromEntries(MATCH_STATUSES.map((s) => [s, 0])) as Record<MatchStatus, number>,
    malformed: 0,
  };
  const queue: Pending[] = [];
  // The header goes out with the first rows answered (or alone, for a list without rows).
  let head: string | undefined = writer.head();
  let out: Writable | undefined;
  const emit = async (text: string) => {
    out ??= await job.out.open();
    await write(out, head === undefined ? text : head + text);
    head = undefined;
  };

  const writeFirst = async () => {
    const { rows, outcomes } = queue.shift()!;
    const settled = outcomes instanceof Promise ? await outcomes : outcomes;
    for (let i = 0; i < rows.length; i++) {
      const malformed = rows[i]!.malformed;
      if (malformed) {
        counts.malformed++;
        job.onMalformed?.(malformed.line, malformed.reason);
      }
      counts.byStatus[settled[i]!.status]++;
    }
    counts.rows += rows.length;
    await emit(writer.rows(rows, settled));
    await job.onProgress?.(counts);
  };

  const submit = async (rows: ListRow[]) => {
    const outcomes = resolver.resolve(rows.map(paramsOf));
    // Awaited when its turn to be written comes; until then a failure must not count as unhandled.
    if (outcomes instanceof Promise) outcomes.catch(() => {});
    queue.push({ rows, outcomes });
    // Written as soon as answered, in order; at most `inFlight` chunks wait for their answers.
    while (
      queue.length > resolver.inFlight ||
      (queue.length > 0 && !(queue[0]!.outcomes instanceof Promise))
    ) {
      await writeFirst();
    }
  };

  // Full chunks whatever the batches read: a bulk request of a few rows costs a server as much as a full one.
  let chunk: ListRow[] = [];
  for await (const batch of reader.batches()) {
    for (const row of batch) {
      chunk.push(row);
      if (chunk.length === resolver.chunkSize) {
        await submit(chunk);
        chunk = [];
      }
    }
  }
  if (chunk.length > 0) await submit(chunk);
  while (queue.length > 0) await writeFirst();
  if (head !== undefined) await emit('');
  return counts;
}
