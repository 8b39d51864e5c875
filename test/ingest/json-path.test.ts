// How a rejection names the offending value: TypeBox pointers as JSON paths.
import { describe, expect, it } from 'vitest';
import { pointerToJsonPath } from '../../src/ingest/json-path.js';

describe('pointerToJsonPath', () => {
  it('writes array positions in brackets and keys with dots', () => {
    const value = { emails: { work: [{ value: 1 }] } };
    expect(pointerToJsonPath('/emails/work/0/value', value)).toBe('$.emails.work[0].value');
  });

  it('names the whole record $', () => {
    expect(pointerToJsonPath('', {})).toBe('$');
  });

  it('quotes keys that are not identifiers, digits included', () => {
    const value = { countries: { '61': 'x', 'New Zealand': 'y', 'a/b': 'z' } };
    expect(pointerToJsonPath('/countries/61', value)).toBe('$.countries["61"]');
    expect(pointerToJsonPath('/countries/New Zealand', value)).toBe('$.countries["New Zealand"]');
    expect(pointerToJsonPath('/countries/a~1b', value)).toBe('$.countries["a/b"]');
  });
});
