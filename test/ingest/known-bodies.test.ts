// Lines known to be stored bodies: a line is skipped exactly when, trimmed as the import trims it, it is
// the body of a stored record, and never for an id the files name twice.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KnownBodies, knownBodies } from '../../src/ingest/known-bodies.js';
import { etagOf } from '../../src/ingest/prepare.js';

const storeOf = (bodies: string[]) => ({
  async *exportEtags() {
    yield bodies.map(etagOf);
  },
});

const check = (known: KnownBodies, line: string) => {
  // The line inside a larger buffer, as the reader sees it.
  const buffer = Buffer.from(`xx\n${line}\nyy`);
  return known.has(buffer, 3, buffer.length - 3);
};

describe('known bodies', () => {
  it('know a line exactly when its trimmed text is a stored body', async () => {
    const body = fc
      .string({ unit: 'grapheme', minLength: 1 })
      .map((text) => JSON.stringify({ id: 'p1', text }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(body, { minLength: 1, maxLength: 20 }),
        body,
        fc.constantFrom('', ' ', '\t', '\r', '  \t'),
        async (stored, other, blank) => {
          const known = new KnownBodies({ ...(await knownBodies(storeOf(stored), 'people'))!, except: [] });
          for (const line of stored) expect(check(known, `${blank}${line}${blank}`)).toBe(true);
          expect(check(known, other)).toBe(stored.includes(other));
          // One character fewer is another record.
          const shorter = stored[0]!.slice(0, -1);
          expect(check(known, shorter)).toBe(stored.includes(shorter));
        },
      ),
    );
  });

  it('never know a line of an id excepted, nor a blank line', async () => {
    const bodies = ['{"id":"a","v":1}', '{"id":"b","v":1}'];
    const known = new KnownBodies({ ...(await knownBodies(storeOf(bodies), 'people'))!, except: ['b'] });
    expect(check(known, bodies[0]!)).toBe(true);
    expect(check(known, bodies[1]!)).toBe(false);
    expect(check(known, '   ')).toBe(false);
  });

  it('are none when nothing is stored, and ignore an etag not derived from a body', async () => {
    expect(await knownBodies(storeOf([]), 'people')).toBeUndefined();
    const foreign = {
      async *exportEtags() {
        yield ['W/"abc"', '"short"'];
      },
    };
    expect(await knownBodies(foreign, 'people')).toBeUndefined();
  });
});
