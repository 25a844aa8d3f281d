import { describe, expect, it } from 'vitest';
import { windowStart, windowVerdict } from '../../../src/state/hit-counter.js';

describe('fixed windows', () => {
  it('start at multiples of their length, whatever the clock', () => {
    expect(windowStart(0, 10_000)).toBe(0);
    expect(windowStart(19_999, 10_000)).toBe(10_000);
    expect(windowStart(20_000, 10_000)).toBe(20_000);
  });

  it('allow up to the limit; past it the wait is until the window ends', () => {
    expect(windowVerdict(3, 3, 10_000, 10_000, 12_500)).toEqual({ allowed: true, retryAfterMs: 0 });
    expect(windowVerdict(4, 3, 10_000, 10_000, 12_500)).toEqual({ allowed: false, retryAfterMs: 7_500 });
  });
});
