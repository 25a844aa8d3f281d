import { describe, expect, it } from 'vitest';
import { compilePolicyPattern, patternProblem } from '../../../src/policy/index.js';

const UNSUPPORTED = 'lookaround/backreferences are not supported (RE2)';

describe('a policy pattern RE2 refuses is explained by what is wrong with it', () => {
  it.each([
    ['(unclosed', /^missing closing "\)"; .*\\\( for a literal parenthesis/],
    ['a)', /^a "\)" that closes no group; remove it/],
    ['[abc', /^missing closing "\]" of a character class/],
    ['a\\', /^ends in a lone backslash; write \\\\ for a literal backslash/],
    ['\\q', /^invalid escape "\\q"; write the character itself/],
    ['\\u0041', /^invalid escape "\\u"; .*\\x\{41\} for a code point/],
    ['*a', /^"\*" has nothing to repeat/],
    ['a**', /^a repetition of a repetition "\*\*"/],
    ['a{2,1}', /^invalid repeat count "\{2,1\}"; counts go up to 1000/],
    ['a{1001}', /^invalid repeat count "\{1001\}"/],
    ['[z-a]', /^the character range "z-a" runs backwards/],
    ['\\p{Foo}', /^unknown Unicode class "\\p\{Foo\}"/],
    ['(?<n', /^invalid group name "\(\?<n"/],
    ['(?P<n>a)(?P<n>b)', /^the group name "n" is used twice/],
    ['(?i', /^unknown group syntax "\(\?i"; RE2 takes/],
  ])('%s', (pattern, message) => {
    const problem = patternProblem(pattern);
    expect(problem).toMatch(message);
    // Said only where the pattern uses what RE2 lacks.
    expect(problem).not.toContain(UNSUPPORTED);
  });

  it.each([
    ['(?=secret)', 'lookahead "(?="'],
    ['(?!public)', 'lookahead "(?!"'],
    ['(?<=a)b', 'lookbehind "(?<="'],
    ['(?<!a)b', 'lookbehind "(?<!"'],
    ['(a)\\1', 'backreference "\\1"'],
    ['(?<n>a)\\k<n>', 'backreference "\\k"'],
  ])('%s names the unsupported construct', (pattern, what) => {
    expect(patternProblem(pattern)).toBe(`${what}: ${UNSUPPORTED}; match the text itself, or use one rule per case`);
  });

  it('accepts what RE2 accepts, and compiles it to a matcher', () => {
    for (const pattern of ['^src/', '\\.env$', '(?i)secret', '(?P<x>a)b', '\\x{41}', 'a{2,5}?'])
      expect(patternProblem(pattern)).toBeUndefined();
    expect(compilePolicyPattern('\\.env$').test('config/.env')).toBe(true);
  });
});
