import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import type { HitCounter } from '../../src/state/hit-counter.js';
import { type StoreUnderTest } from './state-store-kit.js';

/** HitCounter: the fixed-window hit counter. */
export function describeHitCounter(ctx: StoreUnderTest<HitCounter>): void {
  let store: HitCounter;
  let clock: ManualClock;
  beforeEach(() => {
    ({ store, clock } = ctx());
  });

  describe('hit (fixed window)', () => {
    it('allows limit hits per window and says when the window ends', async () => {
      clock.set(1_767_225_600_000);
      for (let i = 0; i < 3; i++) expect(await store.hit('ip:1', 3, 10_000, clock.now())).toEqual({ allowed: true, retryAfterMs: 0 });
      clock.advance(2500);
      expect(await store.hit('ip:1', 3, 10_000, clock.now())).toEqual({ allowed: false, retryAfterMs: 7500 });
      expect(await store.hit('ip:2', 3, 10_000, clock.now())).toMatchObject({ allowed: true });
      clock.advance(7500);
      expect(await store.hit('ip:1', 3, 10_000, clock.now())).toEqual({ allowed: true, retryAfterMs: 0 });
    });

    it('adds the cost; a cost of 0 only reads', async () => {
      clock.set(1_767_225_600_000);
      expect(await store.hit('ip:1', 3, 10_000, clock.now(), 0)).toEqual({ allowed: true, retryAfterMs: 0 });
      expect(await store.hit('ip:1', 3, 10_000, clock.now(), 3)).toEqual({ allowed: true, retryAfterMs: 0 });
      for (let i = 0; i < 2; i++) expect(await store.hit('ip:1', 3, 10_000, clock.now(), 0)).toMatchObject({ allowed: true });
      expect(await store.hit('ip:1', 3, 10_000, clock.now(), 1)).toEqual({ allowed: false, retryAfterMs: 10_000 });
      expect(await store.hit('ip:1', 3, 10_000, clock.now(), 0)).toEqual({ allowed: false, retryAfterMs: 10_000 });
      clock.advance(10_000);
      expect(await store.hit('ip:1', 3, 10_000, clock.now(), 0)).toEqual({ allowed: true, retryAfterMs: 0 });
    });
  });
}
