// Records' events written in the order a snapshot refresh commits them, without holding them all: records kept
// or added by id, then records removed by id (a refresh removes what the files leave out after its upserts).
// Sorted runs spill to disk and are merged.
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { ClassifiedEvent } from '../../changes/events.js';
import type { LineWriter } from './ndjson-files.js';

/** Records held before a sorted run is written out: some tens of MB. */
const RUN_RECORDS = 100_000;

// JSON text never holds a raw tab (JSON.stringify escapes it), so a tab separates an id from its events.
const SEPARATOR = '\t';

/** Sorts a record's events where a refresh commits them: a removed record after every kept or added one. */
const orderKey = (id: string, events: readonly ClassifiedEvent[]) =>
  `${events[0]?.type.endsWith('.removed') ? '1' : '0'}${id}`;

const byId = (a: [string, string], b: [string, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

export class EventsById {
  private held: [string, string][] = [];
  private readonly runs: string[] = [];
  private dir: string | undefined;
  /** Events added, by type. */
  readonly counts = new Map<string, number>();

  constructor(
    private readonly tempParent: string,
    private readonly runRecords = RUN_RECORDS,
  ) {}

  /** One record's events, in their order; each record is added once. */
  add(id: string, events: readonly ClassifiedEvent[]): void {
    for (const { type } of events) this.counts.set(type, (this.counts.get(type) ?? 0) + 1);
    this.held.push([orderKey(id, events), events.map((event) => JSON.stringify(event)).join(SEPARATOR)]);
    if (this.held.length >= this.runRecords) this.spill();
  }

  private spill(): void {
    // Synchronous, so that `add` stays callable from a line callback; a run is written rarely.
    if (!this.dir) {
      this.dir = path.join(this.tempParent, `.evolve-runs-${process.pid}`);
      mkdirSync(this.dir, { recursive: true });
    }
    const file = path.join(this.dir, `run-${this.runs.length}`);
    writeFileSync(
      file,
      this.held
        .sort(byId)
        .map((entry) => `${entry.join(SEPARATOR)}\n`)
        .join(''),
    );
    this.runs.push(file);
    this.held = [];
  }

  /** Writes every event, records in refresh order (kept or added by id, then removed by id), to `out`, and removes the runs. */
  async writeTo(out: LineWriter): Promise<void> {
    try {
      if (this.runs.length === 0) {
        for (const [, events] of this.held.sort(byId)) await writeEvents(out, events);
        return;
      }
      if (this.held.length > 0) this.spill();
      await mergeRuns(this.runs, out);
    } finally {
      this.held = [];
      if (this.dir) await rm(this.dir, { recursive: true, force: true });
    }
  }
}

async function writeEvents(out: LineWriter, events: string): Promise<void> {
  for (const line of events.split(SEPARATOR)) out.line(line);
  await out.drain();
}

/** A k-way merge of sorted runs; there are few (one per RUN_RECORDS changed records), so a scan picks the least. */
async function mergeRuns(files: readonly string[], out: LineWriter): Promise<void> {
  const readers = files.map((file) =>
    createInterface({ input: createReadStream(file) })[Symbol.asyncIterator](),
  );
  const heads: (string | undefined)[] = await Promise.all(readers.map(async (r) => (await r.next()).value));
  for (;;) {
    let least = -1;
    for (let i = 0; i < heads.length; i++) {
      if (heads[i] !== undefined && (least < 0 || idOf(heads[i]!) < idOf(heads[least]!))) least = i;
    }
    if (least < 0) return;
    const line = heads[least]!;
    await writeEvents(out, line.slice(line.indexOf(SEPARATOR) + 1));
    heads[least] = (await readers[least]!.next()).value;
  }
}

const idOf = (line: string) => line.slice(0, line.indexOf(SEPARATOR));
