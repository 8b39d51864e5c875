// The names and codes both stores persist: an identifier kind's code is in every stored index, so none may change.
import { describe, expect, it } from 'vitest';
import { IDENTIFIER_KIND_CODES, kindCode } from '../../../src/store/sql/tables.js';

describe('identifier kind codes', () => {
  it('keep the numbers stored indexes were written with, on both backends', () => {
    expect(IDENTIFIER_KIND_CODES).toEqual({
      linkedin: 1,
      work_email: 2,
      personal_email: 3,
      domain: 4,
      abn: 5,
      work_email_sha256: 6,
      personal_email_sha256: 7,
      name_at_company_id: 8,
      name_at_domain: 9,
      name_at_linkedin: 10,
      name_at_company_name: 11,
    });
  });

  it('refuse a kind the index does not know', () => {
    expect(kindCode('abn')).toBe(5);
    expect(() => kindCode('phone' as never)).toThrow(/unknown identifier kind: phone/);
  });
});
