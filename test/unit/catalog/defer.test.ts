import { describe, expect, it } from 'vitest';
import { deferMatcher } from '../../../src/catalog/defer.js';

describe('?defer=: names or globs to defer, `!` keeps a tool loaded whatever the others say', () => {
  it('defers what a pattern matches, and nothing when no pattern does', () => {
    const deferred = deferMatcher('Read, mcp_*');
    expect(['Read', 'mcp_fetch', 'Write'].filter(deferred)).toEqual(['Read', 'mcp_fetch']);
    expect(deferMatcher(' , ')('Read')).toBe(false);
  });

  it('a `!` pattern wins over every other, in any order', () => {
    expect(['Read', 'Grep', 'Write'].filter(deferMatcher('*,!Read,!Grep'))).toEqual(['Write']);
    expect(['Read', 'Write'].filter(deferMatcher('!Read,*'))).toEqual(['Write']);
  });
});
