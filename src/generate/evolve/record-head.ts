// What the cheap check of a generated line needs, read from its first bytes without parsing the record.

const ID_OPEN = Buffer.from('{"id":"');
const EMPLOYER_KEY = Buffer.from('"current_company":');
const EMPLOYER_ID_OPEN = Buffer.from('{"id":"');
const NULL = Buffer.from('null');
const QUOTE = 0x22;

const startsWith = (buffer: Buffer, at: number, end: number, prefix: Buffer) =>
  at + prefix.length <= end && buffer.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0;

export interface RecordHead {
  id: string;
  /**
   * A person's employer id; null when current_company is null; undefined when the line does not show it
   * in the generator's layout (then the record must be parsed).
   */
  employer?: string | null;
}

/** The index of `bytes` in [from, end) of the buffer, or -1: never searching past the line. */
function find(buffer: Buffer, bytes: Buffer | number, from: number, end: number): number {
  const at = buffer.subarray(from, end).indexOf(bytes);
  return at < 0 ? -1 : from + at;
}

/**
 * The id of a line written as the generator writes (`{"id":"…",`), and with `employer`, a person's
 * employer id when `current_company` is null or opens with a non-empty `"id"`. Undefined for any other
 * layout of the id.
 */
export function readHead(
  buffer: Buffer,
  start: number,
  end: number,
  employer = false,
): RecordHead | undefined {
  if (!startsWith(buffer, start, end, ID_OPEN)) return undefined;
  const idEnd = find(buffer, QUOTE, start + ID_OPEN.length, end);
  if (idEnd < 0) return undefined;
  const id = buffer.toString('latin1', start + ID_OPEN.length, idEnd);
  if (!employer) return { id };
  const key = find(buffer, EMPLOYER_KEY, idEnd, end);
  if (key < 0) return { id };
  const value = key + EMPLOYER_KEY.length;
  if (startsWith(buffer, value, end, NULL)) return { id, employer: null };
  if (!startsWith(buffer, value, end, EMPLOYER_ID_OPEN)) return { id };
  const employerEnd = find(buffer, QUOTE, value + EMPLOYER_ID_OPEN.length, end);
  if (employerEnd <= value + EMPLOYER_ID_OPEN.length) return { id };
  return { id, employer: buffer.toString('latin1', value + EMPLOYER_ID_OPEN.length, employerEnd) };
}
