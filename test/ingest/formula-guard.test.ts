import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { neutraliseFormula, neutraliseRow } from '../../src/ingest/formula-guard.js';

describe('neutraliseFormula', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['=HYPERLINK("http://evil.example","click")', `'=HYPERLINK("http://evil.example","click")`],
    ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
    ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
    ['-cmd', "'-cmd"],
    ["-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"],
    ['+', "'+"],
    ['\t=1', "'\t=1"],
    ['\r=1', "'\r=1"],
  ])('prefixes %j with a quote', (cell, written) => {
    expect(neutraliseFormula(cell)).toBe(written);
  });

  it.each([
    '+61 2 9999 1234',
    '+1 (555) 010-9999',
    '-12.5',
    '+64-9-555-0100',
    'Jane Citizen',
    'jane@acme.com.au',
    'a=b',
    '',
    "'=already",
  ])('leaves %j as it is', (cell) => {
    expect(neutraliseFormula(cell)).toBe(cell);
  });

  it('neutralises every cell of a row', () => {
    expect(neutraliseRow(['=1', 'plain', '+61 400 000 000'])).toEqual(["'=1", 'plain', '+61 400 000 000']);
  });

  it('never leaves a cell opening with a formula character that does not open a plain number', () => {
    fc.assert(
      fc.property(fc.string(), (cell) => {
        const written = neutraliseFormula(cell);
        expect(written === cell || written === `'${cell}`).toBe(true);
        if (/^[=@\t\r]/.test(written)) return false;
        if (/^[+-]/.test(written)) return /^[+-]\d[\d\s.,()/+-]*$/.test(written);
        return neutraliseFormula(written) === written;
      }),
    );
  });
});
