// How each backend spells what the statements shared between them (./keys.ts, ./usage.ts, ./audit.ts, …)
// leave to it. Both number their parameters $1, $2, … (better-sqlite3 binds them from `{ 1: …, 2: … }`).

/** A column of rows inserted many at a time, and its PostgreSQL type. */
export type RowColumn = readonly [name: string, type: string];

export interface Spelling {
  /** A parameter where PostgreSQL must be told its type (`$3::text[]`); SQLite takes it as it is. */
  typed(param: string, type: string): string;
  /**
   * The rows of an INSERT, from parameters $first, $first + 1, … one per column: a row of values on
   * SQLite (one statement per row, in one transaction), an array per column unnested on PostgreSQL (one
   * statement for them all).
   */
  rows(columns: readonly RowColumn[], first?: number): string;
  /** The column that orders rows as they were inserted. */
  readonly insertionOrder: string;
  /** A text column compared byte by byte (ids and names sort as on the other backend). */
  bytewise(column: string): string;
  /** A time before every other, where a query takes "since" always (so one index serves it). */
  readonly beginningOfTime: string;
  /** The texts of a list parameter as rows, for `IN (…)`: a JSON array on SQLite, a text[] on PostgreSQL. */
  list(param: string): string;
}

const params = (columns: readonly RowColumn[], first: number) => columns.map((_, i) => `$${first + i}`);

export const SQLITE: Spelling = {
  typed: (param) => param,
  rows: (columns, first = 1) => `VALUES (${params(columns, first).join(', ')})`,
  insertionOrder: 'rowid',
  // SQLite's default collation, BINARY, already is.
  bytewise: (column) => column,
  // Times are ISO-8601 text: every one sorts after ''.
  beginningOfTime: '',
  list: (param) => `SELECT value FROM json_each(${param})`,
};

export const POSTGRES: Spelling = {
  typed: (param, type) => `${param}::${type}`,
  rows: (columns, first = 1) =>
    `SELECT * FROM unnest(${params(columns, first)
      .map((param, i) => `${param}::${columns[i]![1]}[]`)
      .join(', ')})`,
  insertionOrder: 'seq',
  bytewise: (column) => `${column} COLLATE "C"`,
  beginningOfTime: '-infinity',
  list: (param) => `SELECT unnest(${param}::text[])`,
};
