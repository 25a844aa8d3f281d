import { describe, expect, it } from 'vitest';
import { MemoryTokenBuckets } from '../../../../src/state/memory/token-bucket.js';

describe('MemoryTokenBuckets', () => {
  it('takes nothing on a check: only take() spends a token', () => {
    const buckets = new MemoryTokenBuckets();
    expect(typeof buckets.check('k', 1, 0)).toBe('number');
    expect(typeof buckets.check('k', 1, 0)).toBe('number');
    buckets.take('k', buckets.check('k', 1, 0) as number, 0);
    expect(buckets.check('k', 1, 0)).toEqual({ outcome: 'rate_limited', retryAfterMs: 60_000 });
  });

  it('is full again after a minute idle, and the sweep then drops it without changing that', () => {
    const buckets = new MemoryTokenBuckets();
    buckets.take('k', buckets.check('k', 1, 0) as number, 0);
    buckets.sweep(60_000);
    expect(typeof buckets.check('k', 1, 60_000)).toBe('number');
  });
});
