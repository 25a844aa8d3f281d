import { describe, expect, it } from 'vitest';
import { re2ToJs } from '../../../../src/guardrails/vendor/re2-to-js.js';

describe('RE2 patterns as JavaScript', () => {
  const matches = (re2: string, text: string) => {
    const { source, flags } = re2ToJs(re2);
    return new RegExp(source, flags).test(text);
  };

  it('keep case-insensitive parts, case-sensitive groups, POSIX classes, dot-all groups and text anchors', () => {
    expect(matches('p8e-(?i)[a-z0-9]{4}$', 'p8e-AbC1')).toBe(true);
    expect(matches('p8e-(?i)[a-z0-9]{4}$', 'P8E-abc1')).toBe(false);
    expect(matches('(?i)key(?-i:[Aa]pi|API)', 'KEYApi')).toBe(true);
    expect(matches('(?i)key(?-i:[Aa]pi|API)', 'keyaPI')).toBe(false);
    expect(matches('^pat[[:alnum:]]{3}$', 'patA9z')).toBe(true);
    expect(matches('^pat[[:alnum:]]{3}$', 'pat_9z')).toBe(false);
    expect(matches('^a.b$', 'a\nb')).toBe(false);
    expect(matches('^a(?s:.)b$', 'a\nb')).toBe(true);
    expect(matches('end\\z', 'the end')).toBe(true);
    expect(matches('end\\z', 'end\n')).toBe(false);
  });
});
