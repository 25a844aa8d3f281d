import { describe, expect, it } from 'vitest';
import { backoffMs, parseRetryAfter } from '../../../../src/tools/http/retry.js';

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP date relative to now, never negative', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
  });
});

describe('backoffMs: exponential with jitter, capped', () => {
  it('doubles each attempt, between half and the whole step', () => {
    expect(backoffMs(0, () => 0)).toBe(100);
    expect(backoffMs(0, () => 1)).toBe(200);
    expect(backoffMs(1, () => 0)).toBe(200);
    expect(backoffMs(3, () => 1)).toBe(1600);
  });

  it('caps at 5 s', () => {
    expect(backoffMs(20, () => 1)).toBe(5000);
  });
});
