import { describe, expect, it } from 'vitest';
import { visibleText, visibleValue } from '../../../src/approvals/visible.js';

describe('hidden characters are shown as code points', () => {
  it.each([
    ['\u202A\u202B\u202C\u202D\u202E', '<U+202A><U+202B><U+202C><U+202D><U+202E>'],
    ['\u2066\u2067\u2068\u2069', '<U+2066><U+2067><U+2068><U+2069>'],
    ['\u200B\u200C\u200D\u200E\u200F', '<U+200B><U+200C><U+200D><U+200E><U+200F>'],
    ['\u2028\u2029\uFEFF\u00AD\u061C\u2060', '<U+2028><U+2029><U+FEFF><U+00AD><U+061C><U+2060>'],
    ['\u0000\u0007\u001B[31m\r\u007F\u0085', '<U+0000><U+0007><U+001B>[31m<U+000D><U+007F><U+0085>'],
    ['tag\u{E0041}', 'tag<U+E0041>'],
    ['echo "<U+202E>" <b> <U', 'echo "<U+003C>U+202E>" <b> <U'],
    ['rm a\u00A0b\u2003c\u3000', 'rm a<U+00A0>b<U+2003>c<U+3000>'],
    ['\u3164\u115F\u2800\u034F\uFE0F\u{E0100}', '<U+3164><U+115F><U+2800><U+034F><U+FE0F><U+E0100>'],
    ['rm -rf build\u17B4 \u17B5\u1160\uFFA0', 'rm -rf build<U+17B4> <U+17B5><U+1160><U+FFA0>'],
    [
      '\u2065\uFFF0\uFFF8\u{E0000}\u{E0002}\u{E001F}\u{E0080}\u{E01F0}\u{E0FFF}',
      '<U+2065><U+FFF0><U+FFF8><U+E0000><U+E0002><U+E001F><U+E0080><U+E01F0><U+E0FFF>',
    ],
    ['\u180B\u180E\u{1BCA0}\u{1D173}', '<U+180B><U+180E><U+1BCA0><U+1D173>'],
    ['private \uE000\u{F0000} unassigned \u0378 lone \uD800', 'private <U+E000><U+F0000> unassigned <U+0378> lone <U+D800>'],
  ])('%j', (text, shown) => {
    expect(visibleText(text)).toBe(shown);
  });

  it('shows every default-ignorable code point, assigned or not', () => {
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      const char = String.fromCodePoint(cp);
      if (/\p{Default_Ignorable_Code_Point}/u.test(char)) expect(visibleText(char)).not.toBe(char);
    }
  });

  it('keeps newlines, tabs and every visible character, any script', () => {
    const text = 'line\n\tindented: é 日本 العربية 🙂 $(rm -rf /)';
    expect(visibleText(text)).toBe(text);
  });

  it('reaches every string of a value, keys included', () => {
    expect(visibleValue({ 'a\u202E': ['x\u200B', 1, null, { b: '\u2066' }], n: true })).toEqual({
      'a<U+202E>': ['x<U+200B>', 1, null, { b: '<U+2066>' }],
      n: true,
    });
  });
});
