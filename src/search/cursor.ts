// Cursors: where the next page starts, as an opaque token naming the last result's place in the order.
import type { SortKey } from '../store/search.js';
import { invalid } from './values.js';

/**
 * The token of a sort key. Pages continue after it (keyset), so records imported or deleted between two
 * pages never make a page repeat or skip one that was there throughout.
 * @example decodeCursor(encodeCursor({ rank: 3, id: 'fp1' })) // { rank: 3, id: 'fp1' }
 */
export function encodeCursor(key: SortKey): string {
  return Buffer.from(JSON.stringify([key.rank, key.id])).toString('base64url');
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The sort key of a token this service issued; anything else is a 400 naming `cursor`. */
export function decodeCursor(token: string): SortKey {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (Array.isArray(decoded) && decoded.length === 2) {
    const [rank, id] = decoded as [unknown, unknown];
    if (Number.isSafeInteger(rank) && (rank as number) >= 0 && typeof id === 'string' && ID.test(id)) {
      return { rank: rank as number, id };
    }
  }
  throw invalid('cursor', 'cursor is not one this service issued; pass the `next` of a previous page.');
}
