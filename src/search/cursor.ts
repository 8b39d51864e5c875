// Cursors: where the next page starts, as an opaque token naming the last result's place in the order and
// how many results the query has served before it (its place in the search window).
import type { SortKey } from '../store/search.js';
import { invalid } from './values.js';

/** A cursor's sort key and the results served before the page it starts (0 when it does not say). */
export interface Cursor extends SortKey {
  served?: number;
}

/**
 * The token of a sort key, and of the results served up to it. Pages continue after the key (keyset), so
 * records imported or deleted between two pages never make a page repeat or skip one that was there
 * throughout.
 * @example decodeCursor(encodeCursor({ rank: 3, id: 'fp1', served: 20 })) // { rank: 3, id: 'fp1', served: 20 }
 */
export function encodeCursor(key: Cursor): string {
  const fields = key.served ? [key.rank, key.id, key.served] : [key.rank, key.id];
  return Buffer.from(JSON.stringify(fields)).toString('base64url');
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const count = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;

/** The sort key of a token this service issued; anything else is a 400 naming `cursor`. */
export function decodeCursor(token: string): Cursor {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (Array.isArray(decoded) && (decoded.length === 2 || decoded.length === 3)) {
    const [rank, id, served] = decoded as [unknown, unknown, unknown];
    if (count(rank) && typeof id === 'string' && ID.test(id) && (served === undefined || count(served))) {
      return served === undefined
        ? { rank: rank as number, id }
        : { rank: rank as number, id, served: served as number };
    }
  }
  throw invalid('cursor', 'cursor is not one this service issued; pass the `next` of a previous page.');
}
