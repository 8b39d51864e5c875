// The id of an NDJSON line, read without parsing the record when the line has the documented shape.

const ID_PREFIX = Buffer.from('{"id":"');

function hasBackslash(buffer: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (buffer[i] === 0x5c) return true;
  return false;
}

/**
 * The top-level id of a line, or undefined when it has none (a line the import will reject). A line that
 * opens with `{"id":"` (the documented shape) is read without parsing the rest; any other is parsed.
 */
export function lineId(buffer: Buffer, start: number, end: number): string | undefined {
  if (
    end - start > ID_PREFIX.length &&
    buffer.compare(ID_PREFIX, 0, ID_PREFIX.length, start, start + ID_PREFIX.length) === 0
  ) {
    const from = start + ID_PREFIX.length;
    const close = buffer.indexOf(0x22, from);
    // Only the id's own bytes are searched for an escape: a search to the chunk's end (a megabyte, for
    // every line) took most of a refresh's first pass over its files.
    if (close >= 0 && close < end && !hasBackslash(buffer, from, close))
      return buffer.toString('utf8', from, close);
  }
  try {
    const value: unknown = JSON.parse(buffer.toString('utf8', start, end));
    const id = (value as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
