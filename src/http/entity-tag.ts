// Conditional requests: whether an If-None-Match header names the entity tag a response would carry.

/**
 * True when an If-None-Match header names this entity tag (or is `*`), compared weakly (RFC 9110 §13.1.2).
 * @example notModified('W/"a", "b"', '"a"') // true
 */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch === etag || ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
