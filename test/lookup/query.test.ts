import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/errors.js';
import { parseLookupQuery } from '../../src/lookup/query.js';

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
});
