import { describe, expect, it } from 'vitest';
import { TokenCache } from '../../../src/identity/token-cache.js';

describe('TokenCache', () => {
  it('keeps a verified token until it expires, by a digest that is not the token', () => {
    const cache = new TokenCache<string>();
    const digest = TokenCache.digest('secret-token');
    expect(digest).not.toContain('secret');
    cache.set(digest, 'caller', 2_000, 1_000);
    expect(cache.get(digest, 1_999)).toBe('caller');
    expect(cache.get(digest, 2_000)).toBeUndefined();
    cache.set(digest, 'expired', 500, 1_000);
    expect(cache.get(digest, 1_000)).toBeUndefined();
  });

  it('holds at most its bound, the oldest dropped first', () => {
    const cache = new TokenCache<number>(2);
    for (const n of [1, 2, 3]) cache.set(`d${n}`, n, 10_000, 0);
    expect([1, 2, 3].map((n) => cache.get(`d${n}`, 0))).toEqual([undefined, 2, 3]);
  });
});
