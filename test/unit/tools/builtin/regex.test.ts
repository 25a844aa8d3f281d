import { describe, expect, it } from 'vitest';
import { compileSearchPattern } from '../../../../src/tools/builtin/regex.js';

describe('Grep patterns run on RE2, in linear time', () => {
  it('matches as a regular expression, with or without case', () => {
    expect(compileSearchPattern('fo+ba[rz]', false).test('a fooobaz b')).toBe(true);
    expect(compileSearchPattern('FOO', false).test('foo')).toBe(false);
    expect(compileSearchPattern('FOO', true).test('foo')).toBe(true);
  });

  it('a catastrophic pattern for a backtracking engine answers at once', () => {
    const started = Date.now();
    expect(compileSearchPattern('(a+)+$', false).test(`${'a'.repeat(5_000)}!`)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('lookaround or an invalid pattern is INVALID_ARGS', () => {
    expect(() => compileSearchPattern('a(?=b)', false)).toThrow(expect.objectContaining({ code: 'INVALID_ARGS' }));
    expect(() => compileSearchPattern('(unclosed', false)).toThrow(expect.objectContaining({ code: 'INVALID_ARGS' }));
  });
});
