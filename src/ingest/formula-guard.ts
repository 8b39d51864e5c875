// CSV injection (OWASP): a cell a spreadsheet would run as a formula is written with a leading quote, so that
// it opens as the text it is. Every CSV the service writes passes its cells through here.

/** Always a formula (or a cell that turns into one) when first in a cell: `=`, `@`, a tab, a carriage return. */
const FORMULA_START = /^[=@\t\r]/;
/** A signed number or phone number (`+61 2 9999 1234`, `-12.5`, `+1 (555) 010-9999`): no formula in it. */
const SIGNED_NUMBER = /^[+-]\d[\d\s.,()/+-]*$/;

/**
 * The cell as OWASP's CSV-injection advice writes it: prefixed with `'` when it starts with `=`, `@`, a tab or
 * a carriage return, or with `+` or `-` not opening a plain number — phone numbers keep their `+` as they are,
 * while `-2+3+cmd|' /C calc'!A0` is neutralised. A prefixed cell never needs it again (it starts with `'`).
 * @example neutraliseFormula('=HYPERLINK("http://x")') // `'=HYPERLINK("http://x")`
 * @example neutraliseFormula('+61 2 9999 1234') // '+61 2 9999 1234'
 */
export function neutraliseFormula(cell: string): string {
  const first = cell.charCodeAt(0);
  // '+' or '-': a formula unless a plain number follows.
  if (first === 43 || first === 45) return SIGNED_NUMBER.test(cell) ? cell : `'${cell}`;
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

/** A row's cells, each neutralised: what a CSV writer hands its stringifier. */
export const neutraliseRow = (cells: readonly string[]): string[] => cells.map(neutraliseFormula);
