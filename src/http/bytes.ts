// A response body built from text and stored bytes, written into reused segments of memory: the bytes are
// copied once and never decoded or re-encoded (a record is served as it was imported), and a large body
// does not pay for fresh pages — the kernel zeroes each page of new memory on its first touch, which cost
// more than the copying itself.

/** Bytes per segment: a bulk of 100 records fits in one or two. */
const SEGMENT_BYTES = 256 * 1024;
/** Segments kept for reuse at most: a few bulks' worth in flight. */
const KEPT = 32;
const kept: Buffer[] = [];

/** A segment, reused when one is free. */
const segment = (): Buffer => kept.pop() ?? Buffer.allocUnsafeSlow(SEGMENT_BYTES);

/**
 * Writes text and byte pieces into segments; `take` hands them over, and `release` gives them back once
 * they have been written out.
 * @example const body = new BodyBuilder(); body.text('{"record":'); body.bytes(record.body); body.text('}');
 */
export class BodyBuilder {
  private readonly full: Buffer[] = [];
  private current: Buffer | undefined;
  private used = 0;
  /** Text not yet written: consecutive texts are encoded in one go. */
  private pending = '';

  text(text: string): void {
    this.pending += text;
  }

  bytes(bytes: Buffer | string): void {
    if (typeof bytes === 'string') {
      this.text(bytes);
      return;
    }
    if (this.pending !== '') this.flush();
    if (this.room() >= bytes.length) {
      this.current!.set(bytes, this.used);
      this.used += bytes.length;
      return;
    }
    let from = 0;
    while (from < bytes.length) {
      if (this.room() === 0) this.next(0);
      const copied = bytes.copy(this.current!, this.used, from);
      this.used += copied;
      from += copied;
    }
  }

  /** The body so far, as views of its segments in order; the builder starts over. */
  take(): Buffer[] {
    if (this.pending !== '') this.flush();
    if (this.current !== undefined) this.full.push(this.current.subarray(0, this.used));
    this.current = undefined;
    this.used = 0;
    return this.full.splice(0);
  }

  /** Writes the pending text. */
  private flush(): void {
    const text = this.pending;
    this.pending = '';
    // UTF-8 takes at most three bytes per UTF-16 unit.
    if (this.room() < text.length * 3) this.next(text.length * 3);
    this.used += this.current!.write(text, this.used);
  }

  private room(): number {
    return this.current === undefined ? 0 : this.current.length - this.used;
  }

  /** Starts a segment with room for at least `bytes` (a larger one of its own for a long text). */
  private next(bytes: number): void {
    if (this.current !== undefined) this.full.push(this.current.subarray(0, this.used));
    this.current = bytes > SEGMENT_BYTES ? Buffer.allocUnsafeSlow(bytes) : segment();
    this.used = 0;
  }
}

/** Gives segments back for reuse once written out (never while a socket may still read them). */
export function release(views: readonly Buffer[]): void {
  for (const view of views) {
    if (kept.length >= KEPT) return;
    if (view.byteOffset === 0 && view.buffer.byteLength === SEGMENT_BYTES) {
      kept.push(Buffer.from(view.buffer, 0, SEGMENT_BYTES));
    }
  }
}

/** The total length of a body's views. */
export const lengthOf = (views: readonly Buffer[]) => views.reduce((sum, view) => sum + view.length, 0);
