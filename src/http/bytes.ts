// A response body built from text and stored bytes: the bytes are copied once into the body, never decoded
// or re-encoded (a record is served as it was imported).

/**
 * Collects text and byte pieces, then writes them into one buffer.
 * @example const body = new BodyBuilder(); body.text('{"record":'); body.bytes(record.body); body.text('}');
 */
export class BodyBuilder {
  private readonly parts: Array<string | Buffer> = [];
  /** Text since the last bytes: appended as one string (V8 joins them cheaply). */
  private pending = '';

  text(text: string): void {
    this.pending += text;
  }

  bytes(bytes: Buffer | string): void {
    if (typeof bytes === 'string') {
      this.pending += bytes;
      return;
    }
    if (this.pending !== '') this.parts.push(this.pending);
    this.pending = '';
    this.parts.push(bytes);
  }

  /** The body so far, as one buffer; the builder starts over. */
  take(): Buffer {
    if (this.pending !== '') this.parts.push(this.pending);
    this.pending = '';
    let length = 0;
    for (const part of this.parts) length += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
    const body = Buffer.allocUnsafe(length);
    let offset = 0;
    for (const part of this.parts) {
      if (typeof part === 'string') offset += body.write(part, offset);
      else offset += part.copy(body, offset);
    }
    this.parts.length = 0;
    return body;
  }
}
