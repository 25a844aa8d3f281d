import { describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../../src/shared/clock.js';

describe('ManualClock', () => {
  it('starts at 2026-01-01 and moves only when told to', () => {
    const clock = new ManualClock();
    expect(clock.now()).toBe(Date.UTC(2026, 0, 1));
    expect(clock.now()).toBe(Date.UTC(2026, 0, 1));
    clock.advance(1_500);
    expect(clock.now()).toBe(Date.UTC(2026, 0, 1) + 1_500);
    clock.set(42);
    expect(clock.now()).toBe(42);
  });
});

describe('systemClock', () => {
  it('reads the wall clock', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
