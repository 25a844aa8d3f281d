import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '../../../src/shared/clock.js';
import { createMemoryStateStore } from '../../../src/state/memory/index.js';
import { createRedisStateStore } from '../../../src/state/redis/index.js';
import type { AdmitRequest, SettleRequest, StateStore } from '../../../src/state/state-store.js';

/**
 * CLOSED → N consecutive failures → OPEN for the recovery time
 * → HALF_OPEN, where exactly one probe decides. A call admitted while the
 * breaker was closed may report after it opened (a slow call, another
 * replica's call): its outcome must not close the breaker early nor push its
 * reopen time back. Both state stores, since replicas share the Redis one.
 */

const url = inject('redisUrl');
const BREAKER = { scope: 'Tool', failureThreshold: 3, recoveryMs: 300_000 };
const admitReq: AdmitRequest = { tenant: 't', sessionId: 's', callId: 'c', tool: 'Tool', breaker: BREAKER };
const settleReq = (outcome: 'success' | 'failure' | 'neutral', probe = false): SettleRequest => ({
  tenant: 't',
  sessionId: 's',
  callId: 'c',
  tool: 'Tool',
  breaker: { ...BREAKER, outcome, probe },
});

const stores: StateStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

const makers: Array<[string, (clock: ManualClock) => StateStore]> = [
  ['memory', (clock) => createMemoryStateStore({ clock })],
  ['redis', (clock) => createRedisStateStore({ url, keyPrefix: `late-${randomUUID()}`, clock })],
];

describe.each(makers)('late results on an open breaker (%s store)', (_name, make) => {
  async function opened(): Promise<{ store: StateStore; clock: ManualClock; reopensAt: number }> {
    const clock = new ManualClock();
    const store = make(clock);
    stores.push(store);
    // The late call is admitted while the breaker is closed...
    expect((await store.admit([admitReq], clock.now()))[0]).toMatchObject({ outcome: 'admitted', probe: false });
    // ...then three other calls fail and open it.
    await store.settle([settleReq('failure'), settleReq('failure'), settleReq('failure')], clock.now());
    const [status] = await store.circuits([BREAKER.scope], clock.now());
    expect(status).toMatchObject({ state: 'open', failures: 3 });
    return { store, clock, reopensAt: status!.reopens_at! };
  }

  it('a late success does not close it', async () => {
    const { store, clock, reopensAt } = await opened();
    await store.settle([settleReq('success')], clock.now());
    expect((await store.circuits([BREAKER.scope], clock.now()))[0]).toMatchObject({ state: 'open', reopens_at: reopensAt });
    expect((await store.admit([admitReq], clock.now()))[0]).toMatchObject({ outcome: 'circuit_open' });
  });

  it('a late failure does not restart the recovery time', async () => {
    const { store, clock, reopensAt } = await opened();
    clock.advance(100_000);
    await store.settle([settleReq('failure')], clock.now());
    expect((await store.circuits([BREAKER.scope], clock.now()))[0]).toMatchObject({ state: 'open', reopens_at: reopensAt });
    clock.advance(200_000);
    expect((await store.circuits([BREAKER.scope], clock.now()))[0]).toMatchObject({ state: 'half_open' });
  });

  it('while half open, only the probe decides: a late success beside it neither closes it nor frees the slot', async () => {
    const { store, clock } = await opened();
    clock.advance(300_000);
    expect((await store.admit([admitReq], clock.now()))[0]).toMatchObject({ outcome: 'admitted', probe: true });
    await store.settle([settleReq('success')], clock.now());
    expect((await store.admit([admitReq], clock.now()))[0]).toMatchObject({ outcome: 'circuit_open' });
    await store.settle([settleReq('success', true)], clock.now());
    expect((await store.circuits([BREAKER.scope], clock.now()))[0]).toMatchObject({ state: 'closed', failures: 0 });
  });

  it('a failed probe still reopens it with the timer restarted', async () => {
    const { store, clock } = await opened();
    clock.advance(300_000);
    expect((await store.admit([admitReq], clock.now()))[0]).toMatchObject({ outcome: 'admitted', probe: true });
    clock.advance(10);
    await store.settle([settleReq('failure', true)], clock.now());
    expect((await store.circuits([BREAKER.scope], clock.now()))[0]).toMatchObject({ state: 'open', reopens_at: clock.now() + 300_000 });
  });
});
