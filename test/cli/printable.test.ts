import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printable } from '../../src/cli/printable.js';

describe('printable', () => {
  it('writes control characters, DEL, C1 controls and undecodable bytes as escapes', () => {
    expect(printable('\u001b[2J\u0007x\u007f\u009b\ufffd')).toBe('\\x1b[2J\\x07x\\x7f\\x9b\\ufffd');
  });

  it('keeps tabs, line feeds and every printable character, accents and emoji included', () => {
    expect(printable('José\tGarcía\n€ 🎉')).toBe('José\tGarcía\n€ 🎉');
  });

  it('never leaves a control character but a tab or a line feed', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(printable(text).replace(/[\t\n]/g, '')).not.toMatch(/\p{Cc}/u);
      }),
    );
  });
});
