import { describe, expect, it } from 'vitest';
import { compileRules, testRule } from '../../../src/policy/rules.js';

describe('a compiled rule', () => {
  const [rule] = compileRules([{ tool: 'G*', when: { path: '^src/', pattern: 'TODO' }, decision: 'deny' }]);

  it('keeps its place in the file and matches tool names as a glob', () => {
    expect(rule!.index).toBe(0);
    expect(['Grep', 'Glob', 'Read'].map((name) => rule!.matchesTool(name))).toEqual([true, true, false]);
  });

  it('holds when every `when` pattern matches its argument; a missing one is no match, a non-string one unclassifiable', () => {
    expect(testRule(rule!, { path: 'src/a.ts', pattern: 'TODO' })).toBe('match');
    expect(testRule(rule!, { path: 'lib/a.ts', pattern: 'TODO' })).toBe('no');
    expect(testRule(rule!, { path: 'src/a.ts' })).toBe('no');
    expect(testRule(rule!, { path: 'src/a.ts', pattern: 7 })).toBe('unclassifiable');
  });

  it('reads only its own arguments, never one inherited from Object.prototype', () => {
    const [own] = compileRules([{ tool: '*', when: { constructor: 'x' }, decision: 'deny' }]);
    expect(testRule(own!, {})).toBe('no');
  });
});
