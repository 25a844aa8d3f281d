import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import type { StateStore } from '../../src/state/state-store.js';
import { BREAKER, call, LEASE, outcome, TENANT, type StoreUnderTest, type SuiteOps } from './state-store-kit.js';

/** Admitting a batch, and the call-id replay lease and result. */
export function describeAdmitAndReplay(ctx: StoreUnderTest, { admit1, settle }: SuiteOps): void {
  let store: StateStore;
  let clock: ManualClock;
  beforeEach(() => {
    ({ store, clock } = ctx());
  });

  describe('admit', () => {
    it('answers an empty batch with an empty list', async () => {
      expect(await store.admit([], clock.now())).toEqual([]);
    });

    it('admits a call with no state, no lock and no probe', async () => {
      expect(await admit1(call())).toEqual({ outcome: 'admitted', lock: null, probe: false });
    });

    it('answers every request of a batch, in order', async () => {
      await settle(outcome('failure', { breaker: { ...BREAKER, scope: 'Bad', outcome: 'failure', probe: true } }));
      const answers = await store.admit(
        [call({ callId: 'a' }), call({ callId: 'b', breaker: { ...BREAKER, scope: 'Bad' } }), call({ callId: 'c' })],
        clock.now(),
      );
      expect(answers.map((a) => a.outcome)).toEqual(['admitted', 'circuit_open', 'admitted']);
    });
  });

  describe('call-id replay', () => {
    it('holds a lease: the same call again is in flight, other arguments are a mismatch', async () => {
      expect((await admit1(call({ replay: LEASE }))).outcome).toBe('admitted');
      expect(await admit1(call({ replay: LEASE }))).toEqual({ outcome: 'in_flight' });
      expect(await admit1(call({ replay: { ...LEASE, fingerprint: 'fp-2' } }))).toEqual({ outcome: 'mismatch' });
    });

    it('replays the stored result for the same fingerprint and refuses another', async () => {
      await admit1(call({ replay: LEASE }));
      const result = { status: 'success', text: 'done', data: { list: [], nested: { n: 1.5 } } };
      await settle(outcome('success', { replay: { result, ttlMs: 86_400_000 } }));
      expect(await admit1(call({ replay: LEASE }))).toEqual({ outcome: 'replayed', result });
      expect(await admit1(call({ replay: { ...LEASE, fingerprint: 'fp-2' } }))).toEqual({ outcome: 'mismatch' });
    });

    it('scopes records by tenant, session and call id', async () => {
      await admit1(call({ replay: LEASE }));
      expect((await admit1(call({ replay: LEASE, callId: 'c2' }))).outcome).toBe('admitted');
      expect((await admit1(call({ replay: LEASE, sessionId: 's2' }))).outcome).toBe('admitted');
      expect((await admit1(call({ replay: LEASE, tenant: 'other' }))).outcome).toBe('admitted');
    });

    it('lets the call run again once the lease expired without a result', async () => {
      await admit1(call({ replay: LEASE }));
      clock.advance(LEASE.leaseMs - 1);
      expect((await admit1(call({ replay: LEASE }))).outcome).toBe('in_flight');
      clock.advance(1);
      expect((await admit1(call({ replay: { ...LEASE, fingerprint: 'fp-2' } }))).outcome).toBe('admitted');
    });

    it('forgets a result after its ttl', async () => {
      await admit1(call({ replay: LEASE }));
      await settle(outcome('success', { replay: { result: { text: 'x' }, ttlMs: 1000 } }));
      clock.advance(1000);
      expect((await admit1(call({ replay: LEASE }))).outcome).toBe('admitted');
    });

    it('lets later requests of a batch see the lease an earlier one took', async () => {
      const answers = await store.admit([call({ replay: LEASE }), call({ replay: LEASE })], clock.now());
      expect(answers.map((a) => a.outcome)).toEqual(['admitted', 'in_flight']);
    });
  });

  describe('awaitResult', () => {
    const ref = { tenant: TENANT, sessionId: 's1', callId: 'c1' };

    it('resolves as soon as the running call settles elsewhere', async () => {
      await admit1(call({ replay: LEASE }));
      const started = Date.now();
      const waiting = store.awaitResult(ref, 5000);
      setTimeout(() => void settle(outcome('success', { replay: { result: { text: 'late' }, ttlMs: 60_000 } })), 30);
      expect(await waiting).toEqual({ text: 'late' });
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('returns a stored result at once', async () => {
      await admit1(call({ replay: LEASE }));
      await settle(outcome('success', { replay: { result: { text: 'x' }, ttlMs: 60_000 } }));
      expect(await store.awaitResult(ref, 5000)).toEqual({ text: 'x' });
    });

    it('returns null when the timeout passes first', async () => {
      await admit1(call({ replay: LEASE }));
      const started = Date.now();
      expect(await store.awaitResult(ref, 60)).toBeNull();
      expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    });

    it('returns null when there is no record or the lease expired without a result', async () => {
      expect(await store.awaitResult(ref, 5000)).toBeNull();
      await admit1(call({ replay: LEASE }));
      clock.advance(LEASE.leaseMs);
      expect(await store.awaitResult(ref, 5000)).toBeNull();
    });
  });
}
