// A selected field of a record as one CSV cell: the value at a dotted path (through arrays too), as text.

/**
 * The value at a dotted path: through objects by key, and through arrays element by element (giving an
 * array of what each element holds there); undefined where the path leads nowhere.
 * @example valueAt({ emails: { work: [{ value: 'a@x.au' }, { value: 'b@x.au' }] } }, ['emails', 'work', 'value'])
 * // ['a@x.au', 'b@x.au']
 */
export function valueAt(value: unknown, path: readonly string[], from = 0): unknown {
  if (from === path.length) return value;
  if (Array.isArray(value)) return value.map((item) => valueAt(item, path, from));
  if (value === null || typeof value !== 'object') return undefined;
  return valueAt((value as Record<string, unknown>)[path[from]!], path, from + 1);
}

const isScalar = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/**
 * A value as one cell: a string as it is, a number or boolean as JSON writes it, nothing for null or absent,
 * an array of strings and numbers joined with "; " (its nulls left out), anything else as JSON text.
 * @example flatValue(['Accounting', 'Finance']) // 'Accounting; Finance'
 * @example flatValue({ handle: 42 }) // '{"handle":42}'
 */
export function flatValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (isScalar(value)) return String(value);
  if (Array.isArray(value)) {
    const present = value.filter((item) => item !== null && item !== undefined);
    if (present.every(isScalar)) return present.map(String).join('; ');
  }
  return JSON.stringify(value);
}
