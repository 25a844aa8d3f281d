import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../../../src/tools/builtin/glob-match.js';

describe("a model's glob as a linear-time matcher of the walk's paths", () => {
  it('matches *, **, ?, [abc] and {a,b}; dotfiles too', () => {
    const ts = compileGlob('src/**/*.{ts,tsx}');
    expect(ts('src/a/b/c.ts')).toBe(true);
    expect(ts('src/c.tsx')).toBe(true);
    expect(ts('lib/c.ts')).toBe(false);
    expect(compileGlob('*')('.env')).toBe(true);
    expect(compileGlob('file?.[ab]')('file1.a')).toBe(true);
  });

  it('a leading ! negates the glob', () => {
    expect(compileGlob('!*.md')('README.md')).toBe(false);
    expect(compileGlob('!*.md')('main.ts')).toBe(true);
  });

  it('a glob that backtracks for hours in picomatch answers at once', () => {
    const started = Date.now();
    expect(compileGlob('*a*a*a*a*a*a*a*a*a*b')('a'.repeat(60))).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('a negated extglob is INVALID_ARGS', () => {
    expect(() => compileGlob('!(foo).ts')).toThrow(expect.objectContaining({ code: 'INVALID_ARGS' }));
  });
});
