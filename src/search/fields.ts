// `fields` of a /v1 search: which members of each preview to return; the record's id always.
import { ProblemError } from '../errors.js';
import { MAX_TEXT_LENGTH } from './values.js';

/**
 * The fields asked for (a list, or names separated by commas), with the id field first; undefined when
 * not given (every field). An unknown name is a 400 listing the valid ones.
 */
export function parseFields(given: unknown, valid: readonly string[]): string[] | undefined {
  if (given === undefined) return undefined;
  const names =
    typeof given === 'string' && given.length <= MAX_TEXT_LENGTH
      ? given.split(',')
      : Array.isArray(given) && given.every((name) => typeof name === 'string')
        ? (given as string[])
        : undefined;
  const problem = (detail: string, field?: string) =>
    new ProblemError('invalid_parameter', detail, {
      parameter: 'fields',
      ...(field === undefined ? {} : { field }),
      accepted: valid,
    });
  if (names === undefined)
    throw problem('fields must be a list of field names, or names separated by commas.');
  const chosen = new Set([valid[0]!]);
  for (const raw of names) {
    const name = raw.trim();
    if (name === '') continue;
    if (!valid.includes(name)) {
      throw problem(
        `Unknown field "${name.slice(0, 64)}" in fields; valid: ${valid.join(', ')}.`,
        name.slice(0, 64),
      );
    }
    chosen.add(name);
  }
  return valid.filter((name) => chosen.has(name));
}

/** A preview reduced to the chosen fields, in the preview's own order. */
export function project<T extends object>(preview: T, fields: readonly string[] | undefined): Partial<T> {
  if (fields === undefined) return preview;
  const out: Record<string, unknown> = {};
  for (const name of fields) out[name] = (preview as Record<string, unknown>)[name];
  return out as Partial<T>;
}
