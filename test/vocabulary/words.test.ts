// Words as the service compares them (src/vocabulary/words.ts): folded, and "every word as a word or the start of one".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compactLabel,
  matchesWordStarts,
  searchWords,
  storedWords,
  wordList,
  wordScore,
} from '../../src/vocabulary/words.js';

describe('search words', () => {
  it('fold case, accents, compatibility forms and punctuation', () => {
    expect(searchWords('Head of R&D — Engineering')).toBe('head of r d engineering');
    expect(searchWords('  José GARCÍA ')).toBe('jose garcia');
    expect(searchWords('Māori Wānaka Taupō')).toBe('maori wanaka taupo');
    expect(searchWords('ﬁnance／ＣＦＯ')).toBe('finance cfo');
    expect(searchWords('İstanbul')).toBe('istanbul');
    expect(searchWords('東京 office')).toBe('東京 office');
    expect(searchWords('—')).toBe('');
  });

  it('are letters and digits separated by single spaces, and folding them again changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        const words = searchWords(text);
        expect(words).not.toMatch(/^ | $| {2}/);
        expect(words).toMatch(/^[\p{L}\p{N} ]*$/u);
        expect(searchWords(words)).toBe(words);
      }),
    );
  });

  it('fold plain ASCII text as they fold any text', () => {
    const folded = (text: string) =>
      text
        .normalize('NFKD')
        .replace(/\p{M}+/gu, '')
        .toLowerCase()
        .normalize('NFKD')
        .replace(/\p{M}+/gu, '')
        .replace(/[^\p{L}\p{N}]+/gu, ' ')
        .trim();
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 60 }), (text) => {
        expect(searchWords(text)).toBe(folded(text));
      }),
      { numRuns: 2000 },
    );
    expect(searchWords('Head of R&D - Engineering\t(APAC)\n')).toBe('head of r d engineering apac');
  });

  it('match a position when every word is a word of it or starts one', () => {
    const position = storedWords('Engineering Manager');
    expect(matchesWordStarts(position, wordList('eng man'))).toBe(true);
    expect(matchesWordStarts(position, wordList('Manager, ENGINEERING'))).toBe(true);
    expect(matchesWordStarts(position, wordList('gineer'))).toBe(false);
    expect(matchesWordStarts(position, wordList('eng sales'))).toBe(false);
    expect(matchesWordStarts(storedWords('Directeur Général'), wordList('general'))).toBe(true);
  });

  it('find every word of a text in it, and every start of those words', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-zé]{1,8}$/), { minLength: 1, maxLength: 5 }),
        fc.nat(),
        (list, cut) => {
          const stored = storedWords(list.join(' '));
          const word = searchWords(list[cut % list.length]!);
          expect(matchesWordStarts(stored, [word])).toBe(true);
          expect(matchesWordStarts(stored, [word.slice(0, 1 + (cut % word.length))])).toBe(true);
        },
      ),
    );
  });

  it('are stored whole, up to a number of bytes when one is given', () => {
    expect(storedWords('Head of Sales', 7)).toBe(' head');
    expect(storedWords('Head of Sales', 8)).toBe(' head of');
    expect(storedWords('Head of Sales', 14)).toBe(' head of sales');
    expect(storedWords('中中中 x', 3)).toBe('');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.nat(120), (text, max) => {
        const whole = storedWords(text);
        const kept = storedWords(text, max);
        expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(max);
        expect(whole.startsWith(kept)).toBe(true);
        expect(whole.length === kept.length || whole[kept.length] === ' ').toBe(true);
        if (Buffer.byteLength(whole) <= max) expect(kept).toBe(whole);
      }),
    );
  });

  it('score 2 for a whole word and 1 for the start of one', () => {
    const stored = storedWords('Sales Manager');
    expect(wordScore(stored, ['sales'])).toBe(2);
    expect(wordScore(stored, ['man'])).toBe(1);
    expect(wordScore(stored, ['sales', 'man', 'finance'])).toBe(3);
    expect(wordScore('', ['sales'])).toBe(0);
  });

  it('compare range labels without case or spaces', () => {
    expect(compactLabel('11 - 50')).toBe(compactLabel('11-50'));
    expect(compactLabel('>$1B+')).toBe('>$1b+');
  });
});
