import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../../src/shared/clock.js';
import { createMemoryStateStore } from '../../../../src/state/memory/index.js';
import { describeStateStore } from '../../../suites/state-store.suite.js';

describeStateStore('memory', async () => {
  const clock = new ManualClock();
  const store = createMemoryStateStore({ clock });
  return { store, clock, cleanup: () => store.close() };
});

describe('MemoryStateStore', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs its sweep on a timer that close() clears', async () => {
    vi.useFakeTimers();
    const store = createMemoryStateStore({ clock: new ManualClock(), sweepIntervalMs: 1000 });
    expect(vi.getTimerCount()).toBe(1);
    await store.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('wakes waiters with null on close', async () => {
    const clock = new ManualClock();
    const store = createMemoryStateStore({ clock });
    const ref = { tenant: 't', sessionId: 's', callId: 'c' };
    await store.admit(
      [
        {
          ...ref,
          tool: 'Edit',
          replay: { fingerprint: 'f', leaseMs: 10_000 },
          breaker: { scope: 'Edit', failureThreshold: 3, recoveryMs: 1000 },
        },
      ],
      clock.now(),
    );
    const waiting = store.awaitResult(ref, 60_000);
    await store.close();
    expect(await waiting).toBeNull();
  });
});
