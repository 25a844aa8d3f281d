import { describe, expect, it } from 'vitest';
import { createKeywordIndex } from '../../../src/guardrails/keywords.js';
import { randomTexts } from '../../helpers/random-texts.js';

const KEYWORDS = ['ghp_', 'akia', 'sk', 'ey', 'xoxb', 'q~', 'hvs.', 'linear_api_key_with_a_long_name'];

/** What the index must answer: each keyword that occurs from `from` on, ASCII letters in any case, nothing else folded. */
function reference(text: string, from: number): number[] {
  const folded = text.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return KEYWORDS.flatMap((keyword, index) => (folded.indexOf(keyword, from) >= 0 ? [index] : []));
}

const sorted = (found: number[]) => [...found].sort((a, b) => a - b);

describe('the keyword index', () => {
  const index = createKeywordIndex(KEYWORDS);

  it('finds each keyword in any case, once, and none in a text without', () => {
    expect(sorted(index.find('token GHP_abc and ghp_def, AkIa; SK'))).toEqual([0, 1, 2]);
    expect(index.find('lorem ipsum dolor sit amet\n'.repeat(200))).toEqual([]);
    expect(index.find('')).toEqual([]);
  });

  it('reads from `from` on only', () => {
    expect(index.find('ghp_ xoxb', 1)).toEqual([4]);
    expect(index.find('ghp_', 4)).toEqual([]);
  });

  it('finds a keyword across the quarters the pass runs at once, at every offset', () => {
    for (const length of [40, 199, 1000, 4543]) {
      for (let at = 0; at + 4 <= length; at += 1) {
        const text = 'z'.repeat(at) + 'xoxb' + 'z'.repeat(length - at - 4);
        expect(index.find(text), `xoxb at ${at} of ${length}`).toEqual([4]);
      }
    }
  });

  it('finds a keyword across the 64 KiB parts of a long text, and the longest keyword whole', () => {
    const part = 64 * 1024;
    for (const at of [part - 40, part - 31, part - 2, part, part + 1, 2 * part - 33]) {
      const text = 'z'.repeat(at) + KEYWORDS[7] + 'z'.repeat(200) + 'AKIA';
      expect(sorted(index.find(text)), `at ${at}`).toEqual([1, 3, 7]); // its name holds 'ey'
    }
  });

  it('never reads a character above U+00FF as the ASCII of its low byte', () => {
    // U+0161 (š) and U+0173 (ų) end in 0x61 'a' and 0x73 's'; U+212A, the Kelvin sign, lowercases to an ASCII k elsewhere.
    expect(index.find('\u0173k \u0161kia e\u0179 q\u017e \u212Aey'.replace('\u212Aey', '\u212A'))).toEqual([]);
    expect(index.find('\u0173\u212A')).toEqual([]);
    expect(index.find('ž ghp_ ž')).toEqual([0]);
  });

  it('agrees with a plain search on 5,000 random texts of keywords, their pieces and wide characters', () => {
    const pieces = [...KEYWORDS, 'gh', 'ak', 'xo', 's', 'k', 'e', 'y', 'q', '~', 'ŝ', 'ķ', '\u0161', '😀', 'Z', ' ', '\n', '_', '.'];
    for (const { text, from } of randomTexts(pieces, 5000, 60, 7)) {
      expect(sorted(index.find(text, from)), JSON.stringify({ text, from })).toEqual(reference(text, from));
    }
  });
});
