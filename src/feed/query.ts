// The feed's parameters (contract §8) as a client sends them, checked and turned into what a read needs.
import { CHANGE_EVENT_TYPES, type ChangeEventType } from '../changes/events.js';
import { decodeCursor } from '../changes/render.js';
import { ProblemError } from '../errors.js';

/** The most events one page holds, and how many it holds unless asked. */
export const MAX_FEED_LIMIT = 1000;
export const DEFAULT_FEED_LIMIT = 100;
/** The longest a request may wait for an event to arrive, in seconds. */
export const MAX_FEED_WAIT = 30;

/** The parameters `GET /v1/changes` accepts. */
export const FEED_PARAMS = ['after', 'types', 'limit', 'wait', 'watchlist'] as const;

/** A read of the feed: events after `after` (a sequence number), of `types` and of a watchlist only when given. */
export interface FeedQuery {
  /** Undefined: from the oldest event kept, however much has been pruned. */
  after: number | undefined;
  types: readonly ChangeEventType[] | undefined;
  limit: number;
  /** Seconds to wait for an event when none is there yet (0: answer at once). */
  wait: number;
  /** Only the events of the people and companies this watchlist (of the reading key) watches. */
  watchlist: string | undefined;
}

const invalid = (parameter: string, detail: string, more: Record<string, unknown> = {}) =>
  new ProblemError('invalid_parameter', `${parameter}: ${detail}`, { parameter, ...more });

/** The one value of `name`, or undefined; a repeated or empty one is refused. */
function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(name, 'given more than once.');
  if (value === '') throw invalid(name, 'empty.');
  return value;
}

/** A whole number of `name` from `min` to `max`. */
function whole(name: string, text: string, min: number, max: number): number {
  const n = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= min && n <= max)) throw invalid(name, `must be a whole number from ${min} to ${max}.`);
  return n;
}

/** The event types of a comma-separated list, each one the contract names. */
function eventTypes(text: string): ChangeEventType[] {
  const types = text.split(',').map((type) => type.trim());
  for (const type of types) {
    if (!(CHANGE_EVENT_TYPES as readonly string[]).includes(type)) {
      const named = type === '' ? 'an empty type' : `unknown event type "${type.slice(0, 64)}"`;
      throw invalid('types', `${named}; accepted: ${CHANGE_EVENT_TYPES.join(', ')}.`, {
        accepted: CHANGE_EVENT_TYPES,
      });
    }
  }
  return [...new Set(types)] as ChangeEventType[];
}

/**
 * The feed read a query string asks for, or a 400 naming the parameter at fault.
 * @example parseFeedQuery({ types: 'person.job_changed', limit: '10' })
 */
export function parseFeedQuery(query: Record<string, unknown>): FeedQuery {
  for (const name of Object.keys(query)) {
    if (!(FEED_PARAMS as readonly string[]).includes(name)) {
      throw new ProblemError(
        'unknown_parameter',
        `Unknown parameter "${name.slice(0, 64)}"; accepted: ${FEED_PARAMS.join(', ')}.`,
        { parameter: name.slice(0, 64), accepted: FEED_PARAMS },
      );
    }
  }
  const cursor = single(query, 'after');
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  if (cursor !== undefined && after === undefined) {
    throw invalid('after', 'not a cursor this feed gave (a `next` of an earlier page).');
  }
  const types = single(query, 'types');
  const limit = single(query, 'limit');
  const wait = single(query, 'wait');
  const watchlist = single(query, 'watchlist');
  return {
    after,
    types: types === undefined ? undefined : eventTypes(types),
    limit: limit === undefined ? DEFAULT_FEED_LIMIT : whole('limit', limit, 1, MAX_FEED_LIMIT),
    wait: wait === undefined ? 0 : whole('wait', wait, 0, MAX_FEED_WAIT),
    watchlist,
  };
}
