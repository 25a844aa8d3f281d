import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import type { StateStore } from '../../src/state/state-store.js';
import { call, type StoreUnderTest, type SuiteOps } from './state-store-kit.js';

/** The token bucket per subject and tool. */
export function describeRateLimit(ctx: StoreUnderTest, { admit1 }: SuiteOps): void {
  let store: StateStore;
  let clock: ManualClock;
  beforeEach(() => {
    ({ store, clock } = ctx());
  });

  describe('rate limit', () => {
    const limited = (subject: string, tool = 'Edit') => call({ tool, rateLimit: { subject, perMinute: 60 } });

    it('allows perMinute calls at once, then says truthfully when the next token comes', async () => {
      const burst = await store.admit(
        Array.from({ length: 60 }, () => limited('k')),
        clock.now(),
      );
      expect(burst.every((a) => a.outcome === 'admitted')).toBe(true);
      expect(await admit1(limited('k'))).toEqual({ outcome: 'rate_limited', retryAfterMs: 1000 });
      clock.advance(999);
      expect(await admit1(limited('k'))).toEqual({ outcome: 'rate_limited', retryAfterMs: 1 });
      clock.advance(1);
      expect((await admit1(limited('k'))).outcome).toBe('admitted');
      expect((await admit1(limited('k'))).outcome).toBe('rate_limited');
    });

    it('refills at perMinute per minute up to the capacity only', async () => {
      await store.admit(
        Array.from({ length: 60 }, () => limited('k')),
        clock.now(),
      );
      clock.advance(30_000);
      const half = await store.admit(
        Array.from({ length: 31 }, () => limited('k')),
        clock.now(),
      );
      expect(half.filter((a) => a.outcome === 'admitted')).toHaveLength(30);
      clock.advance(3_600_000);
      const full = await store.admit(
        Array.from({ length: 61 }, () => limited('k')),
        clock.now(),
      );
      expect(full.filter((a) => a.outcome === 'admitted')).toHaveLength(60);
    });

    it('keeps a bucket per subject and tool', async () => {
      const few = (subject: string, tool?: string) => call({ tool, rateLimit: { subject, perMinute: 1 } });
      expect((await admit1(few('k'))).outcome).toBe('admitted');
      expect((await admit1(few('k'))).outcome).toBe('rate_limited');
      expect((await admit1(few('k', 'Write'))).outcome).toBe('admitted');
      expect((await admit1(few('k2'))).outcome).toBe('admitted');
    });

    it('rounds a fractional wait up to the next whole millisecond', async () => {
      const odd = () => call({ rateLimit: { subject: 'k', perMinute: 7 } });
      await store.admit(Array.from({ length: 7 }, odd), clock.now());
      expect(await admit1(odd())).toEqual({ outcome: 'rate_limited', retryAfterMs: 8572 });
      clock.advance(8571);
      expect((await admit1(odd())).outcome).toBe('rate_limited');
      clock.advance(1);
      expect((await admit1(odd())).outcome).toBe('admitted');
    });
  });
}
