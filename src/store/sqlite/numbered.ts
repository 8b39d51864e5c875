// Parameters for the statements shared with PostgreSQL, which number theirs $1, $2, …: better-sqlite3 binds
// numbered parameters by name, from an object.

/** `numbered(a, b)` is `{ 1: a, 2: b }`. */
export function numbered(...values: unknown[]): Record<number, unknown> {
  const named: Record<number, unknown> = {};
  for (let i = 0; i < values.length; i++) named[i + 1] = values[i];
  return named;
}
