import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { completeAbn, completeAcn, isValidAbn, isValidAcn, normaliseAbn } from '../../src/identifiers/abn.js';
import { thrownProblem } from './thrown-problem.js';

const digits = (length: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length, maxLength: length }).map((d) => d.join(''));

describe('normaliseAbn', () => {
  it.each(['51824753556', '51 824 753 556', ' 51 824 753 556 ', '51\u00a0824\u00a0753\u00a0556'])(
    'reads %j as 51824753556',
    (abn) => {
      expect(normaliseAbn(abn)).toBe('51824753556');
    },
  );

  it('says when an ABN is not 11 digits', () => {
    for (const abn of ['5182475355', '518247535561', '51-824-753-556', 'ABN51824753556', '']) {
      const problem = thrownProblem(() => normaliseAbn(abn));
      expect(problem.code).toBe('invalid_parameter');
      expect(problem.detail).toBe('abn must be 11 digits');
    }
  });

  it('says when 11 digits fail the checksum, in a message distinct from the length one', () => {
    const problem = thrownProblem(() => normaliseAbn('51 824 753 557'));
    expect(problem.code).toBe('invalid_parameter');
    expect(problem.detail).toBe('abn fails the ABN checksum');
  });
});

describe('ABN checksum properties', () => {
  it('completes every 9-digit body into a valid ABN', () => {
    fc.assert(
      fc.property(digits(9), (body) => {
        const abn = completeAbn(body);
        expect(abn).not.toBeNull();
        expect(abn!.slice(2)).toBe(body);
        expect(isValidAbn(abn!)).toBe(true);
        expect(normaliseAbn(abn!)).toBe(abn);
      }),
    );
  });

  it('catches every single-digit substitution in a valid ABN', () => {
    fc.assert(
      fc.property(
        digits(9),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 1, max: 9 }),
        (body, at, shift) => {
          const abn = completeAbn(body)!;
          const changed = (Number(abn[at]) + shift) % 10;
          const altered = `${abn.slice(0, at)}${changed}${abn.slice(at + 1)}`;
          expect(isValidAbn(altered)).toBe(false);
        },
      ),
    );
  });

  it('completes every 8-digit body into a valid ACN', () => {
    fc.assert(
      fc.property(digits(8), (body) => {
        expect(isValidAcn(completeAcn(body))).toBe(true);
      }),
    );
  });
});
