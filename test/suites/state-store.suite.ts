import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import type { Admission, AdmitRequest, SettleRequest, StateStore } from '../../src/state/state-store.js';
import { describeApprovals, OPEN } from './state-store-approvals.js';

/** A fresh, isolated store whose `now`-less operations read `clock`. */
export interface StateStoreHarness {
  store: StateStore;
  clock: ManualClock;
  cleanup(): Promise<void>;
}

const TENANT = 'acme';
const BREAKER = { scope: 'Edit', failureThreshold: 3, recoveryMs: 300_000 };
const LEASE = { fingerprint: 'fp-1', leaseMs: 30_000 };

function call(overrides: Partial<AdmitRequest> = {}): AdmitRequest {
  return { tenant: TENANT, sessionId: 's1', callId: 'c1', tool: 'Edit', breaker: BREAKER, ...overrides };
}

function outcome(
  breakerOutcome: SettleRequest['breaker']['outcome'],
  overrides: Partial<SettleRequest> & { probe?: boolean } = {},
): SettleRequest {
  const { probe = false, ...rest } = overrides;
  return {
    tenant: TENANT,
    sessionId: 's1',
    callId: 'c1',
    tool: 'Edit',
    breaker: { ...BREAKER, outcome: breakerOutcome, probe },
    ...rest,
  };
}

/** The state-store suite; every implementation runs it unchanged. */
export function describeStateStore(name: string, make: () => Promise<StateStoreHarness>): void {
  describe(`StateStore suite: ${name}`, () => {
    let harness: StateStoreHarness;
    let store: StateStore;
    let clock: ManualClock;

    beforeEach(async () => {
      harness = await make();
      ({ store, clock } = harness);
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    const admit1 = async (request: AdmitRequest): Promise<Admission> => {
      const answers = await store.admit([request], clock.now());
      expect(answers).toHaveLength(1);
      return answers[0] as Admission;
    };
    const settle = (...requests: SettleRequest[]) => store.settle(requests, clock.now());
    const openBreaker = () => settle(outcome('failure'), outcome('failure'), outcome('failure'));

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

    describeApprovals(() => ({ store, clock }), call, admit1);

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

    describe('request idempotency keys', () => {
      it('claims once; the same request is in flight, another is a mismatch', async () => {
        expect(await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000)).toEqual({ outcome: 'claimed' });
        expect(await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000)).toEqual({ outcome: 'in_flight' });
        expect(await store.claimRequest(TENANT, 'idem-1', 'fp-2', 10_000)).toEqual({ outcome: 'mismatch' });
        expect(await store.claimRequest('other', 'idem-1', 'fp-2', 10_000)).toEqual({ outcome: 'claimed' });
      });

      it('replays the completed response and refuses another fingerprint', async () => {
        await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000);
        const response = { results: [], messages: [{ role: 'tool' }] };
        await store.completeRequest(TENANT, 'idem-1', response, 60_000);
        expect(await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000)).toEqual({ outcome: 'done', response });
        expect(await store.claimRequest(TENANT, 'idem-1', 'fp-2', 10_000)).toEqual({ outcome: 'mismatch' });
        clock.advance(60_000);
        expect(await store.claimRequest(TENANT, 'idem-1', 'fp-2', 10_000)).toEqual({ outcome: 'claimed' });
      });

      it('releases a claim without a response, never a completed one', async () => {
        await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000);
        await store.releaseRequest(TENANT, 'idem-1');
        expect(await store.claimRequest(TENANT, 'idem-1', 'fp-2', 10_000)).toEqual({ outcome: 'claimed' });
        await store.completeRequest(TENANT, 'idem-1', { ok: true }, 60_000);
        await store.releaseRequest(TENANT, 'idem-1');
        expect(await store.claimRequest(TENANT, 'idem-1', 'fp-2', 10_000)).toEqual({ outcome: 'done', response: { ok: true } });
      });

      it('lets a claim lapse when its lease expires', async () => {
        await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000);
        clock.advance(10_000);
        expect(await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000)).toEqual({ outcome: 'claimed' });
      });

      it('awaitRequest resolves on completion and returns null at its timeout', async () => {
        await store.claimRequest(TENANT, 'idem-1', 'fp', 10_000);
        expect(await store.awaitRequest(TENANT, 'idem-1', 40)).toBeNull();
        const waiting = store.awaitRequest(TENANT, 'idem-1', 5000);
        setTimeout(() => void store.completeRequest(TENANT, 'idem-1', { ok: 1 }, 60_000), 20);
        expect(await waiting).toEqual({ ok: 1 });
        expect(await store.awaitRequest(TENANT, 'missing', 5000)).toBeNull();
      });
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

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
