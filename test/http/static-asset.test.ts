import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { negotiateEncoding } from '../../src/http/static-asset.js';

describe('choosing a content encoding from Accept-Encoding', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['identity', 'identity'],
    ['deflate', 'identity'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['GZIP;Q=0.8, BR;Q=0.9', 'br'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['gzip;q=0, *', 'br'],
    ['br;q=oops, gzip', 'gzip'],
  ])('answers %j with %s', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });

  it('never picks an encoding the client refused, nor one it weighs lower than the other', () => {
    const weight = fc.option(fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000));
    fc.assert(
      fc.property(weight, weight, fc.boolean(), (br, gzip, brFirst) => {
        const parts = [
          br === null ? undefined : `br;q=${br}`,
          gzip === null ? undefined : `gzip;q=${gzip}`,
        ].filter((p) => p !== undefined);
        if (!brFirst) parts.reverse();
        const chosen = negotiateEncoding(parts.join(', '));
        const weightOf = { br: br ?? 0, gzip: gzip ?? 0, identity: 0 };
        if (chosen === 'identity') expect(Math.max(weightOf.br, weightOf.gzip)).toBe(0);
        else {
          expect(weightOf[chosen]).toBeGreaterThan(0);
          expect(weightOf[chosen]).toBeGreaterThanOrEqual(weightOf[chosen === 'br' ? 'gzip' : 'br']);
        }
      }),
    );
  });
});
