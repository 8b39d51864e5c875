import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitsInBytes, MAX_IDENTIFIER_BYTES, withinKeyLimit } from '../../src/identifiers/key-bytes.js';
import { accept, reject } from '../../src/identifiers/normalised.js';

describe('the byte limit of an identifier', () => {
  it('counts UTF-8 bytes, not characters', () => {
    expect(withinKeyLimit(accept('a'.repeat(MAX_IDENTIFIER_BYTES))).ok).toBe(true);
    expect(withinKeyLimit(accept('a'.repeat(MAX_IDENTIFIER_BYTES + 1))).ok).toBe(false);
    expect(withinKeyLimit(accept('€'.repeat(341))).ok).toBe(true); // 1,023 bytes
    expect(withinKeyLimit(accept('€'.repeat(342)))).toEqual({
      ok: false,
      reason: 'longer than 1,024 bytes once normalised (UTF-8)',
    });
    expect(withinKeyLimit(accept('😀'.repeat(257))).ok).toBe(false); // 514 characters, 1,028 bytes
  });

  it('leaves a rejection as it was', () => {
    expect(withinKeyLimit(reject('not an e-mail address'))).toEqual(reject('not an e-mail address'));
  });

  it('agrees with the bytes Buffer counts, for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 600 }), fc.nat(1500), (text, max) => {
        expect(fitsInBytes(text, max)).toBe(Buffer.byteLength(text) <= max);
      }),
    );
  });
});
