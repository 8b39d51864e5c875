import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/errors.js';
import { givenParams } from '../../src/lookup/item.js';
import { PEOPLE_LOOKUP } from '../../src/lookup/operations.js';
import { MAX_VALUE_LENGTH, parseLookupQuery } from '../../src/lookup/query.js';

const accepted = ['id', 'work_email'] as const;

function codeOf(query: Record<string, unknown>) {
  try {
    parseLookupQuery(query, accepted);
    return 'ok';
  } catch (error) {
    return (error as ProblemError).code;
  }
}

describe('lookup query parsing', () => {
  it('returns the given identifiers in the order of the accepted list', () => {
    expect(parseLookupQuery({ work_email: 'a@b.co', id: 'fp1' }, accepted)).toEqual([
      ['id', 'fp1'],
      ['work_email', 'a@b.co'],
    ]);
  });

  it('rejects an unknown parameter, naming it and the accepted ones', () => {
    try {
      parseLookupQuery({ email: 'a@b.co' }, accepted);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ProblemError);
      expect((error as ProblemError).code).toBe('unknown_parameter');
      expect((error as ProblemError).detail).toContain('"email"');
      expect((error as ProblemError).detail).toContain('id, work_email');
    }
  });

  it('tells a caller who puts a token in the query string to use the header', () => {
    try {
      parseLookupQuery({ access_token: 'x' }, accepted);
    } catch (error) {
      expect((error as ProblemError).detail).toContain('Authorization header');
    }
  });

  it('rejects no identifier, a repeated one, an empty one and an over-long one', () => {
    expect(codeOf({})).toBe('missing_identifier');
    expect(codeOf({ id: ['a', 'b'] })).toBe('invalid_parameter');
    expect(codeOf({ id: '' })).toBe('invalid_parameter');
    expect(codeOf({ id: '   ' })).toBe('invalid_parameter');
    expect(codeOf({ id: 'x'.repeat(2049) })).toBe('invalid_parameter');
    expect(codeOf({ id: 'x'.repeat(2048) })).toBe('ok');
  });

  it('answers as a check of every accepted name in order would, for any query', () => {
    // What the parser must answer: each name accepted or an option, then each accepted name's value in
    // `accepted` order (the first bad one's 400), the pairs in that order.
    const reference = (query: Record<string, unknown>, names: readonly string[], options: string[]) => {
      for (const name in query) {
        if (!names.includes(name) && !options.includes(name)) return `unknown_parameter ${name}`;
      }
      const given: Array<[string, string]> = [];
      for (const name of names) {
        const value = query[name];
        if (value === undefined) continue;
        if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_VALUE_LENGTH)
          return `invalid_parameter ${name}`;
        given.push([name, value]);
      }
      return given.length === 0 ? 'missing_identifier' : given;
    };
    const answer = (query: Record<string, unknown>, names: readonly string[], options: string[]) => {
      try {
        return parseLookupQuery(query, names, options);
      } catch (error) {
        const { code, extensions } = error as ProblemError;
        return code === 'missing_identifier' ? code : `${code} ${extensions.parameter}`;
      }
    };
    const names = PEOPLE_LOOKUP.params;
    const value = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constant('   '),
      fc.constant('x'.repeat(MAX_VALUE_LENGTH + 1)),
      fc.array(fc.string({ maxLength: 3 }), { minLength: 2, maxLength: 2 }),
      fc.constant(undefined),
    );
    const name = fc.oneof(fc.constantFrom(...names, 'fields'), fc.string({ maxLength: 6 }));
    fc.assert(
      fc.property(fc.dictionary(name, value, { maxKeys: 5 }), (query) => {
        expect(answer(query, names, ['fields'])).toEqual(reference(query, names, ['fields']));
        const given = Object.keys(query).filter((n) => query[n] !== undefined);
        expect(givenParams(PEOPLE_LOOKUP, query)).toEqual(names.filter((n) => given.includes(n)));
      }),
      { numRuns: 2000 },
    );
  });
});
