import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/auth/keys.js';

describe('grace periods', () => {
  it.each([
    ['30m', 1_800_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
    ['45s', 45_000],
    ['0', 0],
    ['365d', 31_536_000_000],
  ])('read %s as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['5', '1w', '', '-1h', '1.5h'])('refuse %j, showing the accepted form', (text) => {
    expect(() => parseDuration(text)).toThrow(/30m, 24h or 7d/);
  });

  it.each(['366d', '8761h', '99999999999999999999d'])('refuse %j, longer than a year', (text) => {
    expect(() => parseDuration(text)).toThrow(/at most 365d/);
  });
});
