import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import type { StateStore } from '../../src/state/state-store.js';
import { OPEN } from './state-store-approvals.js';
import { BREAKER, call, LEASE, outcome, type StoreUnderTest, type SuiteOps } from './state-store-kit.js';

/** Which gate stops a call first, and the session's file locks. */
export function describeGateOrderAndLocks(ctx: StoreUnderTest, { admit1, settle, openBreaker }: SuiteOps): void {
  let store: StateStore;
  let clock: ManualClock;
  beforeEach(() => {
    ({ store, clock } = ctx());
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
}
