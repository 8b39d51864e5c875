import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseEmail } from '../../src/identifiers/email.js';
import { thrownProblem } from './thrown-problem.js';
import { assertIdempotent, typedInput } from './typed-input.js';

describe('normaliseEmail', () => {
  it.each([
    'jane.doe@acme.com.au',
    'Jane.Doe@Acme.com.au',
    'JANE.DOE@ACME.COM.AU',
    '  jane.doe@acme.com.au ',
    '\tJane.Doe@ACME.com.au\n',
  ])('reads %j as jane.doe@acme.com.au', (email) => {
    expect(normaliseEmail(email)).toBe('jane.doe@acme.com.au');
  });

  it('matches an internationalised domain however it was typed', () => {
    expect(normaliseEmail('Jane@Bücher.de')).toBe('jane@xn--bcher-kva.de');
    expect(normaliseEmail('jane@xn--bcher-kva.de')).toBe('jane@xn--bcher-kva.de');
  });

  it.each([
    ['no @', 'jane.acme.com.au'],
    ['two @', 'jane@doe@acme.com.au'],
    ['an empty local part', '@acme.com.au'],
    ['a domain without a dot', 'jane@localhost'],
    ['an empty domain', 'jane@'],
    ['a domain ending in a dot', 'jane@acme.com.'],
    ['an empty domain label', 'jane@acme..com'],
    ['inner whitespace', 'jane doe@acme.com.au'],
    ['whitespace in the domain', 'jane@acme .com.au'],
    ['a path after the domain', 'jane@acme.com.au/x'],
    ['a path after a non-ASCII domain', 'jane@acme.com#bücher.de'],
    ['an underscore in the domain', 'jane@acme_corp.com.au'],
  ])('refuses an address with %s, without echoing it', (_, email) => {
    const problem = thrownProblem(() => normaliseEmail(email));
    expect(problem.code).toBe('invalid_parameter');
    expect(problem.detail).toMatch(/^not an e-mail address/);
    expect(problem.detail).not.toContain('jane');
  });

  it('leaves a normalised address unchanged when normalised again', () => {
    fc.assert(
      fc.property(fc.emailAddress(), (email) => {
        const once = normaliseEmail(email);
        expect(normaliseEmail(once)).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads an address in any case, with surrounding spaces, as the same address', () => {
    fc.assert(
      fc.property(
        fc.mixedCase(fc.emailAddress()),
        fc.constantFrom('', ' ', '  ', '\t'),
        fc.constantFrom('', ' ', '\n'),
        (typed, before, after) => {
          expect(normaliseEmail(`${before}${typed}${after}`)).toBe(normaliseEmail(typed.toLowerCase()));
        },
      ),
    );
  });

  it('leaves any address it accepts unchanged when normalised again', () => {
    assertIdempotent(
      normaliseEmail,
      fc.tuple(typedInput(12), typedInput(12)).map(([a, b]) => `${a}@${b}`),
    );
  });
});
