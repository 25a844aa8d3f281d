import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import type { AdmissionStore } from '../../src/state/admission.js';
import type { ApprovalStore } from '../../src/state/approvals.js';
import type { CircuitStore } from '../../src/state/circuits.js';
import { OPEN } from './state-store-approvals.js';
import { BREAKER, call, LEASE, outcome, TENANT, type StoreUnderTest, type SuiteOps } from './state-store-kit.js';

/**
 * AdmissionStore: a batch answered in order, the call-id replay lease and
 * result, which gate stops a call first (seen through approvals and
 * circuits), the session's Read locks and the token bucket per subject and tool.
 */
export function describeAdmissionStore(
  ctx: StoreUnderTest<AdmissionStore & ApprovalStore & CircuitStore>,
  { admit1, settle, openBreaker }: SuiteOps,
): void {
  let store: AdmissionStore & ApprovalStore & CircuitStore;
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

    it('scopes records by tenant, session, call id and user', async () => {
      await admit1(call({ replay: LEASE }));
      expect((await admit1(call({ replay: LEASE, user: 'alice' }))).outcome).toBe('admitted');
      expect((await admit1(call({ replay: LEASE, user: 'bob' }))).outcome).toBe('admitted');
      expect(await admit1(call({ replay: LEASE, user: 'alice' }))).toEqual({ outcome: 'in_flight' });
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

  describe('gate order: the first check that stops the call wins', () => {
    it('replay before approval: a replayed call creates no approval request', async () => {
      await admit1(call({ replay: LEASE }));
      await settle(outcome('success', { replay: { result: { text: 'x' }, ttlMs: 60_000 } }));
      const answer = await admit1(call({ replay: LEASE, approval: { argsHash: 'h', ttlMs: 60_000, open: OPEN } }));
      expect(answer.outcome).toBe('replayed');
      expect(await store.listApprovals(null, { status: 'pending', limit: 10 }, clock.now())).toEqual([]);
    });

    it('approval before breaker, breaker before rate limit', async () => {
      await openBreaker();
      const approval = { argsHash: 'h', ttlMs: 60_000, open: OPEN };
      expect((await admit1(call({ approval }))).outcome).toBe('approval_pending');
      const rateLimit = { subject: 'key-1', perMinute: 1 };
      expect((await admit1(call({ rateLimit }))).outcome).toBe('circuit_open');
      await store.resetCircuit(BREAKER.scope);
      expect((await admit1(call({ rateLimit }))).outcome).toBe('admitted');
    });

    it('takes no lease when a later gate stops the call', async () => {
      await openBreaker();
      expect((await admit1(call({ replay: LEASE }))).outcome).toBe('circuit_open');
      await store.resetCircuit(BREAKER.scope);
      expect((await admit1(call({ replay: LEASE }))).outcome).toBe('admitted');
    });
  });

  describe('locks', () => {
    const meta = { file_mtime_ms: 1_767_225_600_123, file_size_bytes: 812 };

    it('returns the session’s last lock for the path, until its ttl passes', async () => {
      await settle(outcome('success', { lock: { path: 'src/a.ts', meta, ttlMs: 10_000 } }));
      expect(await admit1(call({ lockPath: 'src/a.ts' }))).toEqual({ outcome: 'admitted', lock: meta, probe: false });
      expect(await admit1(call({ lockPath: 'src/b.ts' }))).toMatchObject({ lock: null });
      expect(await admit1(call({ lockPath: 'src/a.ts', sessionId: 's2' }))).toMatchObject({ lock: null });
      expect(await admit1(call({ lockPath: 'src/a.ts', user: 'alice' }))).toMatchObject({ lock: null });
      clock.advance(10_000);
      expect(await admit1(call({ lockPath: 'src/a.ts' }))).toMatchObject({ outcome: 'admitted', lock: null });
    });

    it('keeps the latest lock for a path', async () => {
      await settle(outcome('success', { lock: { path: 'a', meta, ttlMs: 10_000 } }));
      const newer = { file_mtime_ms: meta.file_mtime_ms + 5, file_size_bytes: 9 };
      await settle(outcome('success', { lock: { path: 'a', meta: newer, ttlMs: 10_000 } }));
      expect(await admit1(call({ lockPath: 'a' }))).toMatchObject({ lock: newer });
    });
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
