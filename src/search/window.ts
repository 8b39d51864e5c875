// The search window: how deep one query may page — 10,000 results, as search engines allow — so that paging
// cannot walk a whole store.
import { ProblemError } from '../errors.js';

/** Results one query may return across all its pages. */
export const SEARCH_WINDOW = 10_000;

/**
 * The size of a page that starts after `served` results of its query: `size`, or less at the window's end;
 * a 400 naming `parameter` once the window is used up.
 */
export function withinWindow(served: number, size: number, parameter: 'cursor' | 'from'): number {
  if (served < SEARCH_WINDOW) return Math.min(size, SEARCH_WINDOW - served);
  throw new ProblemError(
    'invalid_parameter',
    `A search returns at most its first ${SEARCH_WINDOW.toLocaleString('en')} results; narrow the filters to see others.`,
    { parameter, window: SEARCH_WINDOW },
  );
}
