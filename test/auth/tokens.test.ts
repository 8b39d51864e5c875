import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashToken, isWellFormedToken, mintKeyId, mintToken, TOKEN_PREFIX } from '../../src/auth/tokens.js';

describe('tokens', () => {
  it('carry the recognisable prefix and a valid checksum', () => {
    const token = mintToken();
    expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(token).toHaveLength(40);
    expect(isWellFormedToken(token)).toBe(true);
  });

  it('are different every time', () => {
    const tokens = new Set(Array.from({ length: 1000 }, mintToken));
    expect(tokens.size).toBe(1000);
  });

  it('refuse any single mistyped character by checksum', () => {
    const token = mintToken();
    fc.assert(
      fc.property(
        fc.integer({ min: TOKEN_PREFIX.length, max: token.length - 1 }),
        fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'),
        (position, char) => {
          fc.pre(token[position] !== char);
          const typo = token.slice(0, position) + char + token.slice(position + 1);
          expect(isWellFormedToken(typo)).toBe(false);
        },
      ),
    );
  });

  it('refuse the wrong prefix, length or alphabet', () => {
    const token = mintToken();
    expect(isWellFormedToken(`xxx_${token.slice(4)}`)).toBe(false);
    expect(isWellFormedToken(token.slice(0, -1))).toBe(false);
    expect(isWellFormedToken(`${token.slice(0, 10)}-${token.slice(11)}`)).toBe(false);
    expect(isWellFormedToken('')).toBe(false);
  });

  it('are stored as a SHA-256 hex digest that does not contain the token', () => {
    const token = mintToken();
    const hash = hashToken(token);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(hashToken(token));
    expect(hash).not.toContain(token.slice(4));
  });

  it('key ids are public and distinct from tokens', () => {
    const id = mintKeyId();
    expect(id).toMatch(/^key_[0-9A-Za-z]{10}$/);
    expect(isWellFormedToken(id)).toBe(false);
  });
});
