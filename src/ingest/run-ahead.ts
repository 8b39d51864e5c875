// How far a parse thread may run ahead of the writer: by what its batches hold, not by their number.

/**
 * What a prepared batch holds, for the bound: its records and rejected lines, and one for the batch
 * itself. A batch of a refresh holds few records (its unchanged lines are counted, not kept): bounding by
 * batches made the parse threads stop a few batches ahead and wait through each of the writer's
 * transactions, and the writer then wait for them to read on.
 */
export const batchWeight = (batch: { records: unknown[]; rejections: unknown[] }): number =>
  batch.records.length + batch.rejections.length + 1;

/** What `count` full batches weigh: a batch of `batchSize` lines holds at most that many records and rejections. */
export const fullBatches = (count: number, batchSize: number): number => count * (batchSize + 1);

/**
 * The batches a parse thread has sent and the writer has not taken yet (the writer takes them in order),
 * weighed by batchWeight. The thread prepares another only while they weigh less than `limit`, so the
 * memory the two threads hold is bounded whatever the batches hold; a batch heavier than `limit` still
 * goes, alone.
 * @example const ahead = new RunAhead(2000); ahead.sent(1001); ahead.open // true
 */
export class RunAhead {
  private readonly weights: number[] = [];
  private held = 0;

  constructor(private readonly limit: number) {}

  /** True when another batch may be prepared and sent. */
  get open(): boolean {
    return this.held < this.limit;
  }

  /** A batch of this weight was sent. */
  sent(weight: number): void {
    this.weights.push(weight);
    this.held += weight;
  }

  /** The writer took the oldest batch sent. */
  taken(): void {
    this.held -= this.weights.shift() ?? 0;
  }
}
