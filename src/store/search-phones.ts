// Which phone numbers are Australian or New Zealand mobiles, in the forms people and the generator write them.

/** A trunk zero written inside an international number: `+61 (0)4…`. */
const TRUNK_IN_BRACKETS = /\(\s*0\s*\)/g;
const NOT_DIGIT = /\D/g;
/** An Australian area code written apart from the number: `(02) 9…`, `02 9…`, `02-9…`. */
const AU_AREA_WRITTEN_APART = /^\s*(?:\(\s*0\d\s*\)|0\d[\s.\-/)])/;

/** Australian mobiles: 4 and eight more digits after the trunk 0 or +61. */
const auMobile = (significant: string) => /^4\d{8}$/.test(significant);
/** New Zealand mobiles: 2 and seven to nine more digits (021 xxx xxxx, 0204 xxx xxxx) after 0 or +64. */
const nzMobile = (significant: string) => /^2\d{7,9}$/.test(significant);

/** The number after an international prefix (`+`, `00`, `0011`), or undefined when it has none. */
function international(value: string, digits: string): string | undefined {
  if (value.trimStart().startsWith('+')) return digits;
  if (digits.startsWith('0011')) return digits.slice(4);
  if (digits.startsWith('00')) return digits.slice(2);
  return undefined;
}

/** A number written with its country code: +61 or +64, a trunk 0 after it ignored. */
function internationalMobile(number: string): boolean {
  const country = number.slice(0, 2);
  const significant = number.slice(2).replace(/^0/, '');
  if (country === '61') return auMobile(significant);
  if (country === '64') return nzMobile(significant);
  return false;
}

/**
 * An `02…` number: New Zealand's mobile prefix, and also the area code of Australian landlines in NSW and
 * the ACT. It is a landline when the area code is written apart (`(02) 9876 5432`, `02 9876 5432`), or
 * when its ten digits fit an Australian landline and not a common NZ network (`0298765432`); otherwise a
 * New Zealand mobile (`021 123 4567`, `0271234567`, `020 4123 4567`).
 */
function mobileAfter02(value: string, digits: string): boolean {
  if (AU_AREA_WRITTEN_APART.test(value)) return false;
  if (!nzMobile(digits.slice(1))) return false;
  return digits.length !== 10 || '0127'.includes(digits[2]!);
}

/**
 * True for an Australian or New Zealand mobile number in the forms in use: `0412 345 678`,
 * `+61 412 345 678`, `+61 (0)412 345 678`, `0061 4…`, `61412345678`, `412 345 678` (the trunk 0 lost in a
 * spreadsheet), `021 123 4567`, `+64 21 123 4567`, `6421…`. Landlines (`(02) 9876 5432`, `+61 2 9…`,
 * `09 377 1234`) and business numbers (`1300 …`, `0800 …`) are not mobiles.
 * @example isMobile('+64 27 555 0101') // true
 */
export function isMobile(value: string): boolean {
  const digits = value.replace(TRUNK_IN_BRACKETS, '').replace(NOT_DIGIT, '');
  const abroad = international(value, digits);
  if (abroad !== undefined) return internationalMobile(abroad);
  if (digits.startsWith('04')) return auMobile(digits.slice(1));
  if (digits.startsWith('02')) return mobileAfter02(value, digits);
  if (/^6[14]/.test(digits) && digits.length >= 10) return internationalMobile(digits);
  return auMobile(digits);
}
