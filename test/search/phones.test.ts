// Mobile numbers of Australia and New Zealand, in the forms the generator and real data write them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { businessLine, landline, mobile, PHONE_STYLES } from '../../src/generate/phones.js';
import { AU_REGIONS, NZ_REGIONS } from '../../src/generate/places.js';
import { recordRng } from '../../src/generate/random.js';
import { isMobile } from '../../src/store/search-phones.js';

const STYLES = PHONE_STYLES.values;

describe('mobile numbers', () => {
  it('are recognised in the forms people write them', () => {
    for (const number of [
      '0412 345 678',
      '0412345678',
      '+61 412 345 678',
      '+61 4 1234 5678',
      '+61 (0)412 345 678',
      '+61412345678',
      '0061 412 345 678',
      '61412345678',
      '412 345 678',
      '021 123 4567',
      '022 123 4567',
      '027 123 4567',
      '0271234567',
      '020 4123 4567',
      '+64 21 123 4567',
      '+64 27 555 0101',
      '+64 (0)21 123 456',
      '6421123456',
    ]) {
      expect(isMobile(number), number).toBe(true);
    }
  });

  it('are not landlines, business numbers or other countries', () => {
    for (const number of [
      '(02) 9876 5432',
      '02 9876 5432',
      '02-9876-5432',
      '0298765432',
      '+61 2 9876 5432',
      '(03) 9123 4567',
      '08 8123 4567',
      '1300 123 456',
      '1800 123 456',
      '0800 123 456',
      '09 377 1234',
      '+64 9 377 1234',
      '(04) 473 1234',
      '+1 415 555 0100',
      '+44 7700 900123',
      '123',
      '',
    ]) {
      expect(isMobile(number), number).toBe(false);
    }
  });

  it('are every mobile the generator writes, and none of its landlines or business numbers', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.constantFrom(...AU_REGIONS, ...NZ_REGIONS),
        fc.constantFrom(...STYLES),
        (seed, region, style) => {
          const rng = recordRng(seed % 1000, 1, seed);
          expect(isMobile(mobile(rng, region, style))).toBe(true);
          expect(isMobile(landline(rng, region, style))).toBe(false);
          expect(isMobile(businessLine(rng, region))).toBe(false);
        },
      ),
    );
  });
});
