// The ids carrying one identifier, as the serving index keeps them: one value, the ids in order.

/** Stands for a list too long to keep: lookups by that identifier read the store of record instead. */
export const CROWDED = '*';
/** Ids kept per identifier. A list is rewritten on each change, so a long one would cost each write its length. */
export const MAX_LISTED = 1000;
const SEPARATOR = '\n';

/**
 * The list with `id` added in its place (ids sort by code unit, as SQLite and PostgreSQL's "C" collation
 * order them), `CROWDED` once it would hold more than MAX_LISTED.
 * @example withId('a\nc', 'b') // 'a\nb\nc'
 */
export function withId(list: string | undefined, id: string): string {
  if (list === undefined || list === '') return id;
  if (list === CROWDED) return CROWDED;
  const ids = list.split(SEPARATOR);
  let at = 0;
  while (at < ids.length && ids[at]! < id) at++;
  if (ids[at] === id) return list;
  if (ids.length >= MAX_LISTED) return CROWDED;
  ids.splice(at, 0, id);
  return ids.join(SEPARATOR);
}

/**
 * The list without `id`; undefined when that leaves it empty. A crowded list stays crowded: it no
 * longer knows its ids.
 * @example withoutId('a\nb', 'a') // 'b'
 */
export function withoutId(list: string, id: string): string | undefined {
  if (list === CROWDED) return CROWDED;
  const ids = list.split(SEPARATOR).filter((listed) => listed !== id);
  return ids.length === 0 ? undefined : ids.join(SEPARATOR);
}

/** The first `limit` ids of a list (not crowded). */
export function listedIds(list: string, limit: number): string[] {
  if (list.indexOf(SEPARATOR) < 0) return limit > 0 ? [list] : [];
  return list.split(SEPARATOR, limit);
}
