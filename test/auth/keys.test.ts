import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/auth/keys.js';

describe('grace periods', () => {
  it.each([
    ['30m', 1_800_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
    ['45s', 45_000],
    ['0', 0],
  ])('read %s as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['5', '1w', '', '-1h', '1.5h'])('refuse %j, showing the accepted form', (text) => {
    expect(() => parseDuration(text)).toThrow(/30m, 24h or 7d/);
  });
});
