// Line numbers of byte offsets in a stream read chunk by chunk: each newline is counted once, as the offsets
// asked for move forward, so rows can be reported by line without keeping old chunks.

export class LineCounter {
  /** Offset in the stream of the current chunk's first byte. */
  private chunkStart = 0;
  private chunk: Buffer = Buffer.alloc(0);
  /** Newlines before `counted`, an offset in the stream. */
  private newlines = 0;
  private counted = 0;

  /** Takes the next chunk of the stream; the previous one's remaining newlines are counted first. */
  push(chunk: Buffer): void {
    this.countTo(this.chunkStart + this.chunk.length);
    this.chunkStart += this.chunk.length;
    this.chunk = chunk;
  }

  /**
   * The line (1-based) of the byte at `offset`: one more than the newlines before it. Offsets asked for must
   * not go back, and lie in the chunk last pushed (or at its end).
   */
  lineAt(offset: number): number {
    this.countTo(offset);
    return this.newlines + 1;
  }

  private countTo(offset: number): void {
    const end = Math.min(offset, this.chunkStart + this.chunk.length) - this.chunkStart;
    const from = Math.max(0, this.counted - this.chunkStart);
    if (end <= from) return;
    for (
      let at = this.chunk.indexOf(0x0a, from);
      at >= 0 && at < end;
      at = this.chunk.indexOf(0x0a, at + 1)
    ) {
      this.newlines++;
    }
    this.counted = this.chunkStart + end;
  }
}
