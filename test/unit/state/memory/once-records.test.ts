import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMetrics, type Metrics } from '../../../../src/observability/metrics.js';
import { ManualClock } from '../../../../src/shared/clock.js';
import { createMemoryStateStore, type MemoryStateStore } from '../../../../src/state/memory/index.js';
import type { AdmitRequest } from '../../../../src/state/state-store.js';

const TENANT = 'acme';
const BREAKER = { scope: 'Edit', failureThreshold: 3, recoveryMs: 300_000 };
const LEASE = { fingerprint: 'fp', leaseMs: 30_000 };
const TTL = 86_400_000;
/** A result of about 1 KB serialized; three fit under the cap, four do not. */
const result = (tag: string) => ({ status: 'success', tag, text: 'x'.repeat(1000) });
const CAP = 3_500;

let clock: ManualClock;
let metrics: Metrics;
let store: MemoryStateStore;

beforeEach(() => {
  clock = new ManualClock();
  metrics = createMetrics({ processMetrics: false });
  store = createMemoryStateStore({ clock, maxBytes: CAP, onEvict: (kind) => metrics.stateEvictions.inc({ kind }) });
});

afterEach(async () => {
  await store.close();
});

const request = (callId: string): AdmitRequest => ({
  tenant: TENANT,
  sessionId: 's1',
  callId,
  tool: 'Edit',
  breaker: BREAKER,
  replay: LEASE,
});

async function admit(callId: string): Promise<string> {
  const [answer] = await store.admit([request(callId)], clock.now());
  return answer!.outcome;
}

/** Runs the call and stores its result, as the pipeline does. */
async function run(callId: string): Promise<void> {
  expect(await admit(callId)).toBe('admitted');
  await store.settle(
    [{ ...request(callId), breaker: { ...BREAKER, outcome: 'success', probe: false }, replay: { result: result(callId), ttlMs: TTL } }],
    clock.now(),
  );
}

async function evictions(kind: 'call' | 'request'): Promise<number> {
  const { values } = await metrics.stateEvictions.get();
  return values.find((v) => v.labels.kind === kind)?.value ?? 0;
}

describe('state.memory_max_bytes: replay records are evicted least recently used first', () => {
  it('evicts the oldest record when a new one would pass the cap, and counts it', async () => {
    for (const id of ['c1', 'c2', 'c3']) await run(id);
    expect(await evictions('call')).toBe(0);
    await run('c4');
    expect(await evictions('call')).toBe(1);
    for (const id of ['c2', 'c3', 'c4']) expect(await admit(id)).toBe('replayed');
    // Evicted: the call id simply runs again.
    expect(await admit('c1')).toBe('admitted');
  });

  it('keeps a record that a replay touched and evicts the next oldest instead', async () => {
    for (const id of ['c1', 'c2', 'c3']) await run(id);
    expect(await admit('c1')).toBe('replayed');
    await run('c4');
    expect(await admit('c2')).toBe('admitted');
    for (const id of ['c1', 'c3', 'c4']) expect(await admit(id)).toBe('replayed');
  });

  it('counts a record completed twice once, at its latest size', async () => {
    await run('c1');
    await store.settle(
      [{ ...request('c1'), breaker: { ...BREAKER, outcome: 'success', probe: false }, replay: { result: result('again'), ttlMs: TTL } }],
      clock.now(),
    );
    await run('c2');
    await run('c3');
    expect(await evictions('call')).toBe(0);
  });

  it('holds the cap over many records, counting every eviction', async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `c${i}`);
    for (const id of ids) await run(id);
    expect(await evictions('call')).toBe(97);
    const outcomes = await store.admit(ids.map(request), clock.now());
    expect(outcomes.filter((a) => a.outcome === 'replayed')).toHaveLength(3);
    expect(outcomes.slice(-3).map((a) => a.outcome)).toEqual(['replayed', 'replayed', 'replayed']);
  });

  it('shares the cap between call-id records and Idempotency-Key responses, labelled by kind', async () => {
    for (const id of ['c1', 'c2']) await run(id);
    expect(await store.claimRequest(TENANT, 'k1', 'fp', 30_000)).toEqual({ outcome: 'claimed' });
    await store.completeRequest(TENANT, 'k1', result('k1'), TTL);
    expect(await store.claimRequest(TENANT, 'k2', 'fp', 30_000)).toEqual({ outcome: 'claimed' });
    await store.completeRequest(TENANT, 'k2', result('k2'), TTL);
    expect(await evictions('call')).toBe(1);
    await run('c3');
    await run('c4');
    expect(await evictions('request')).toBe(1);
    expect(await store.claimRequest(TENANT, 'k1', 'fp', 30_000)).toEqual({ outcome: 'claimed' });
  });

  it('never evicts a running record: its waiter gets the result and a second runner stays out', async () => {
    expect(await admit('running')).toBe('admitted');
    const waiting = store.awaitResult({ tenant: TENANT, sessionId: 's1', callId: 'running' }, 60_000);
    for (let i = 0; i < 10; i++) await run(`c${i}`);
    expect(await admit('running')).toBe('in_flight');
    await store.settle(
      [
        {
          ...request('running'),
          breaker: { ...BREAKER, outcome: 'success', probe: false },
          replay: { result: result('running'), ttlMs: TTL },
        },
      ],
      clock.now(),
    );
    expect(await waiting).toEqual(result('running'));
    expect(await admit('running')).toBe('replayed');
  });

  it('wakes waiters with a result larger than the whole cap, then forgets it', async () => {
    expect(await admit('huge')).toBe('admitted');
    const waiting = store.awaitResult({ tenant: TENANT, sessionId: 's1', callId: 'huge' }, 60_000);
    const big = { status: 'success', text: 'y'.repeat(CAP * 2) };
    await store.settle(
      [{ ...request('huge'), breaker: { ...BREAKER, outcome: 'success', probe: false }, replay: { result: big, ttlMs: TTL } }],
      clock.now(),
    );
    expect(await waiting).toEqual(big);
    expect(await evictions('call')).toBe(1);
    expect(await admit('huge')).toBe('admitted');
  });

  it('counts UTF-8 bytes: two-byte characters fill the cap twice as fast', async () => {
    const settleText = async (callId: string, text: string) => {
      expect(await admit(callId)).toBe('admitted');
      await store.settle(
        [{ ...request(callId), breaker: { ...BREAKER, outcome: 'success', probe: false }, replay: { result: { text }, ttlMs: TTL } }],
        clock.now(),
      );
    };
    // 1000 'é' are 2000 bytes: two such records pass the 3500-byte cap.
    await settleText('e1', 'é'.repeat(1000));
    await settleText('e2', 'é'.repeat(1000));
    expect(await evictions('call')).toBe(1);
    expect(await admit('e1')).toBe('admitted');
  });
});
