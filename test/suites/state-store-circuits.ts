import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import type { Admission, AdmissionStore } from '../../src/state/admission.js';
import type { CircuitStore } from '../../src/state/circuits.js';
import { BREAKER, call, outcome, type StoreUnderTest, type SuiteOps } from './state-store-kit.js';

/** CircuitStore: the circuit breaker, open, half open with one probe, closed, as admission drives it and circuits() reports it. */
export function describeCircuitStore(ctx: StoreUnderTest<AdmissionStore & CircuitStore>, { admit1, settle, openBreaker }: SuiteOps): void {
  let store: AdmissionStore & CircuitStore;
  let clock: ManualClock;
  beforeEach(() => {
    ({ store, clock } = ctx());
  });

  describe('circuit breaker', () => {
    const status = async () => (await store.circuits([BREAKER.scope], clock.now()))[0];

    it('reports an unknown scope as closed with no failures', async () => {
      expect(await store.circuits(['nothing', 'else'], clock.now())).toEqual([
        { scope: 'nothing', state: 'closed', failures: 0, reopens_at: null },
        { scope: 'else', state: 'closed', failures: 0, reopens_at: null },
      ]);
    });

    it('opens after threshold consecutive failures and stays hidden until recovery', async () => {
      await settle(outcome('failure'), outcome('failure'));
      expect(await status()).toEqual({ scope: 'Edit', state: 'closed', failures: 2, reopens_at: null });
      expect((await admit1(call())).outcome).toBe('admitted');
      await settle(outcome('failure'));
      const opened = clock.now();
      expect(await status()).toEqual({ scope: 'Edit', state: 'open', failures: 3, reopens_at: opened + 300_000 });
      expect(await admit1(call())).toEqual({ outcome: 'circuit_open', retryAfterMs: 300_000 });
      clock.advance(299_999);
      expect(await admit1(call())).toEqual({ outcome: 'circuit_open', retryAfterMs: 1 });
      clock.advance(1);
      expect(await status()).toMatchObject({ state: 'half_open', reopens_at: null });
    });

    it('counts consecutive failures only: a success resets the count', async () => {
      await settle(outcome('failure'), outcome('failure'), outcome('success'), outcome('failure'), outcome('failure'));
      expect(await status()).toMatchObject({ state: 'closed', failures: 2 });
    });

    it('lets exactly one probe through when half open; success closes', async () => {
      await openBreaker();
      clock.advance(300_000);
      const answers = await store.admit([call({ callId: 'a' }), call({ callId: 'b' })], clock.now());
      expect(answers[0]).toEqual({ outcome: 'admitted', lock: null, probe: true });
      expect(answers[1]).toMatchObject({ outcome: 'circuit_open' });
      const retry = (answers[1] as Extract<Admission, { outcome: 'circuit_open' }>).retryAfterMs;
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(1000);
      expect(await status()).toMatchObject({ state: 'half_open' });
      await settle(outcome('success', { probe: true }));
      expect(await status()).toEqual({ scope: 'Edit', state: 'closed', failures: 0, reopens_at: null });
      expect((await admit1(call())).outcome).toBe('admitted');
    });

    it('reopens with the timer restarted when the probe fails', async () => {
      await openBreaker();
      clock.advance(400_000);
      expect(await admit1(call())).toMatchObject({ probe: true });
      clock.advance(5000);
      await settle(outcome('failure', { probe: true }));
      expect(await status()).toMatchObject({ state: 'open', reopens_at: clock.now() + 300_000 });
      expect(await admit1(call())).toEqual({ outcome: 'circuit_open', retryAfterMs: 300_000 });
    });

    it('reopens on a failed probe even with a threshold not yet reached', async () => {
      await store.settle([outcome('failure', { probe: true })], clock.now());
      expect(await status()).toMatchObject({ state: 'open', failures: 1 });
    });

    it('counts neutral outcomes neither way', async () => {
      await settle(outcome('failure'), outcome('failure'), outcome('neutral'), outcome('neutral'), outcome('neutral'));
      expect(await status()).toMatchObject({ state: 'closed', failures: 2 });
      await settle(outcome('failure'));
      expect(await status()).toMatchObject({ state: 'open' });
    });

    it('frees the probe slot on a neutral probe and stays half open', async () => {
      await openBreaker();
      clock.advance(300_000);
      expect(await admit1(call())).toMatchObject({ probe: true });
      await settle(outcome('neutral', { probe: true }));
      expect(await status()).toMatchObject({ state: 'half_open', failures: 3 });
      expect(await admit1(call())).toMatchObject({ outcome: 'admitted', probe: true });
    });

    it('leases the probe slot so a probe that never reports cannot wedge the breaker', async () => {
      await openBreaker();
      clock.advance(300_000);
      expect(await admit1(call())).toMatchObject({ probe: true });
      clock.advance(BREAKER.recoveryMs - 1);
      expect((await admit1(call())).outcome).toBe('circuit_open');
      clock.advance(1);
      expect(await admit1(call())).toMatchObject({ outcome: 'admitted', probe: true });
    });

    it('does not take the probe slot when the rate limit stops the call', async () => {
      const quick = { ...BREAKER, recoveryMs: 1000 };
      const rateLimit = { subject: 'key-1', perMinute: 1 };
      expect((await admit1(call({ rateLimit, breaker: quick }))).outcome).toBe('admitted');
      await settle(...[1, 2, 3].map(() => outcome('failure', { breaker: { ...quick, outcome: 'failure', probe: false } })));
      clock.advance(1000);
      expect((await admit1(call({ rateLimit, breaker: quick }))).outcome).toBe('rate_limited');
      expect(await admit1(call({ breaker: quick }))).toMatchObject({ outcome: 'admitted', probe: true });
    });

    it('resetCircuit forces a breaker closed', async () => {
      await openBreaker();
      await store.resetCircuit(BREAKER.scope);
      expect(await status()).toEqual({ scope: 'Edit', state: 'closed', failures: 0, reopens_at: null });
      expect((await admit1(call())).outcome).toBe('admitted');
    });

    it('keeps breakers apart by scope', async () => {
      await openBreaker();
      expect((await admit1(call({ tool: 'Read', breaker: { ...BREAKER, scope: 'Read' } }))).outcome).toBe('admitted');
    });
  });
}
