import { describe, expect, it } from 'vitest';
import type { ApprovalFilter, ApprovalRecord } from '../../src/protocol/approval.js';
import type { ManualClock } from '../../src/shared/clock.js';
import type { Admission, AdmissionStore, AdmitRequest } from '../../src/state/admission.js';
import type { ApprovalDecision, ApprovalOpening, ApprovalStore } from '../../src/state/approvals.js';
import type { CircuitStore } from '../../src/state/circuits.js';

/** What a new request shows: its arguments and a preview, kept as given. */
export const OPEN: ApprovalOpening = {
  tool: 'Edit',
  arguments: { path: 'a.txt', list: [] as unknown[], note: 'é ✓ "quoted"' },
  preview: {
    kind: 'diff',
    path: 'a.txt',
    diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n',
    new_file: false,
    base: { file_mtime_ms: 1.5, file_size_bytes: 2 },
    truncated: false,
  },
};

const TTL = 3_600_000;
const HISTORY = { ttlMs: 86_400_000, count: 100 };
const decision = (status: 'approved' | 'denied', extra: Partial<ApprovalDecision> = {}): ApprovalDecision => ({
  status,
  by: 'ops-key',
  history: HISTORY,
  ...extra,
});

/** The id of an `approval_pending` answer; fails the test on any other. */
export function pendingId(answer: Admission): string {
  if (answer.outcome !== 'approval_pending') throw new Error(`expected approval_pending, got ${answer.outcome}`);
  return answer.approvalId;
}

/**
 * ApprovalStore: the approval transitions every store implements alike: opened only with
 * what the request shows, found by id, decided once (a second decision
 * names the first), kept after the decision within the history's bounds.
 */
export function describeApprovalStore(
  ctx: () => { store: AdmissionStore & ApprovalStore & CircuitStore; clock: ManualClock },
  call: (overrides?: Partial<AdmitRequest>) => AdmitRequest,
  admit1: (request: AdmitRequest) => Promise<Admission>,
): void {
  describe('approvals', () => {
    const ask = (overrides: Partial<AdmitRequest> = {}, open: ApprovalOpening | null = OPEN) =>
      call({ approval: { argsHash: 'h1', ttlMs: TTL, ...(open && { open }) }, ...overrides });
    const open = async (overrides: Partial<AdmitRequest> = {}) => pendingId(await admit1(ask(overrides)));
    const pending = (tenant: string | null = 'acme', limit = 50) =>
      ctx().store.listApprovals(tenant, { status: 'pending', limit }, ctx().clock.now());
    const decided = (tenant: string | null = 'acme', limit = 50, status: ApprovalFilter = 'decided') =>
      ctx().store.listApprovals(tenant, { status, limit }, ctx().clock.now());
    const decide = (id: string, d: ApprovalDecision, tenant: string | null = 'acme') =>
      ctx().store.decideApproval(id, tenant, d, ctx().clock.now());
    const get = (id: string, tenant: string | null = 'acme') => ctx().store.getApproval(id, tenant, ctx().clock.now());

    it("a user's request is theirs: it names them, and the same call for another user, or for none, opens another", async () => {
      const alice = await open({ user: 'alice' });
      expect(await get(alice)).toMatchObject({ user: 'alice', session_id: 's1' });
      const bob = await open({ user: 'bob', callId: 'c2' });
      const own = await open({ callId: 'c3' });
      expect(new Set([alice, bob, own]).size).toBe(3);
      expect(await get(own)).not.toHaveProperty('user');
      await decide(alice, decision('approved'));
      expect(await decided()).toEqual([expect.objectContaining({ id: alice, user: 'alice', status: 'approved' })]);
      expect(await admit1(ask({ user: 'bob' }))).toMatchObject({ outcome: 'approval_pending', approvalId: bob });
      expect(await admit1(ask({ user: 'alice' }))).toMatchObject({ outcome: 'admitted', approval: { id: alice } });
    });

    it('without a request to open, answers approval_absent and opens nothing', async () => {
      expect(await admit1(ask({}, null))).toEqual({ outcome: 'approval_absent' });
      expect(await pending(null)).toEqual([]);
    });

    it('opens one pending request per (tenant, session, tool, arguments), stored as given, and answers it to every later ask', async () => {
      const { clock } = ctx();
      const first = await admit1(ask());
      const id = pendingId(first);
      expect(id).toMatch(/^\S{16,}$/);
      const expected: ApprovalRecord = {
        id,
        tenant: 'acme',
        session_id: 's1',
        ...OPEN,
        status: 'pending',
        created_at: clock.now(),
        expires_at: clock.now() + TTL,
      };
      expect(first).toEqual({ outcome: 'approval_pending', approvalId: id, opened: expected });
      // Asking again, with or without the request to open: the same one, opened by nobody this time.
      expect(await admit1(ask({ callId: 'other-call' }))).toEqual({ outcome: 'approval_pending', approvalId: id });
      expect(await admit1(ask({}, null))).toEqual({ outcome: 'approval_pending', approvalId: id });
      expect(pendingId(await admit1(ask({ approval: { argsHash: 'h2', ttlMs: TTL, open: OPEN } })))).not.toBe(id);
      expect(pendingId(await admit1(ask({ sessionId: 's2' })))).not.toBe(id);
      expect(await pending()).toContainEqual(expected);
      expect(await get(id)).toEqual(expected);
    });

    it('lists pending requests oldest first, per tenant or every tenant for null, at most `limit`', async () => {
      const { clock } = ctx();
      const a = await open();
      clock.advance(1);
      const g = await open({ tenant: 'globex' });
      clock.advance(1);
      const b = await open({ sessionId: 's2' });
      expect((await pending()).map((r) => r.id)).toEqual([a, b]);
      expect((await pending('globex')).map((r) => r.id)).toEqual([g]);
      expect((await pending(null)).map((r) => r.id)).toEqual([a, g, b]);
      expect((await pending(null, 2)).map((r) => r.id)).toEqual([a, g]);
      expect(await ctx().store.countPendingApprovals(clock.now())).toBe(3);
    });

    it('finds a request by id for its own tenant only; unknown, expired and other tenants’ ids are null', async () => {
      const { clock } = ctx();
      const id = await open();
      expect(await get(id, 'globex')).toBeNull();
      expect(await get(id, null)).toMatchObject({ id });
      expect(await get('apr_unknown')).toBeNull();
      clock.advance(TTL);
      expect(await get(id)).toBeNull();
      expect(await pending()).toEqual([]);
      expect(await ctx().store.countPendingApprovals(clock.now())).toBe(0);
      expect(await decide(id, decision('approved'))).toBeNull();
      // Expired: the same call asks anew, and gets a new request.
      expect(await admit1(ask({}, null))).toEqual({ outcome: 'approval_absent' });
      expect(await open()).not.toBe(id);
    });

    it('decides once: who, when and why are kept, and a second decision answers the first', async () => {
      const { clock } = ctx();
      const id = await open();
      clock.advance(5);
      const at = clock.now();
      const first = await decide(id, decision('denied', { reason: 'not on prod' }));
      expect(first).toEqual({
        outcome: 'decided',
        record: expect.objectContaining({
          id,
          status: 'denied',
          decided_at: at,
          decided_by: 'ops-key',
          reason: 'not on prod',
          preview: OPEN.preview,
        }),
      });
      clock.advance(5);
      expect(await decide(id, decision('approved', { by: 'other-key' }))).toEqual({ outcome: 'already', record: first!.record });
      expect(await decide(id, decision('approved'), 'globex')).toBeNull();
      expect(await get(id)).toEqual(first!.record);
      expect(await pending()).toEqual([]);
      expect(await ctx().store.countPendingApprovals(clock.now())).toBe(0);
      // The denial names who denied, for the call's audit record.
      expect(await admit1(ask())).toEqual({ outcome: 'approval_denied', approvalId: id, decidedBy: 'ops-key', reason: 'not on prod' });
      expect(await decide('apr_unknown', decision('approved'))).toBeNull();
    });

    it('an approved request admits its call once, and stays listed as approved; one whose call never came back expires', async () => {
      const { clock } = ctx();
      const ran = await open();
      const unused = await open({ sessionId: 's2' });
      await decide(ran, decision('approved'));
      clock.advance(1);
      await decide(unused, decision('approved'));
      // The admission names the approval and who gave it: the call's audit record says so.
      expect(await admit1(ask())).toEqual({ outcome: 'admitted', lock: null, probe: false, approval: { id: ran, decidedBy: 'ops-key' } });
      expect(await admit1(ask({}, null))).toEqual({ outcome: 'approval_absent' });
      expect(await decide(ran, decision('denied'))).toMatchObject({
        outcome: 'already',
        record: { status: 'approved', decided_by: 'ops-key' },
      });
      expect((await decided()).map((r) => [r.id, r.status])).toEqual([
        [unused, 'approved'],
        [ran, 'approved'],
      ]);
      clock.advance(TTL);
      expect((await decided()).map((r) => [r.id, r.status])).toEqual([
        [unused, 'expired'],
        [ran, 'approved'],
      ]);
      expect(await get(unused)).toMatchObject({ status: 'expired', decided_by: 'ops-key' });
      expect((await decided(null, 1)).map((r) => r.id)).toEqual([unused]);
    });

    it('lists decided requests of one status, most recent first, `limit` of the matches however far back they are', async () => {
      const { clock } = ctx();
      const wide = { history: { ttlMs: 86_400_000, count: 500 } };
      const first = await open({ sessionId: 'first' });
      await decide(first, decision('approved', wide));
      const other = await open({ tenant: 'globex', sessionId: 'other' });
      await decide(other, decision('denied', wide), 'globex');
      // More denials than a page of the decided index holds, all after the one approval.
      const denials: string[] = [];
      for (let i = 0; i < 120; i++) {
        clock.advance(1);
        denials.push(await open({ sessionId: `d${i}` }));
        await decide(denials[i]!, decision('denied', wide));
      }
      expect((await decided('acme', 1, 'approved')).map((r) => r.id)).toEqual([first]);
      expect((await decided(null, 5, 'approved')).map((r) => r.id)).toEqual([first]);
      expect((await decided('acme', 2, 'denied')).map((r) => r.id)).toEqual([denials[119], denials[118]]);
      expect(await decided('acme', 500, 'denied')).toHaveLength(120);
      expect(await decided('globex', 50, 'denied')).toEqual([
        expect.objectContaining({ id: other, status: 'denied', decided_by: 'ops-key' }),
      ]);
      expect(await decided('acme', 50, 'expired')).toEqual([]);
      clock.advance(TTL);
      expect((await decided('acme', 50, 'expired')).map((r) => [r.id, r.status])).toEqual([[first, 'expired']]);
      expect(await decided('acme', 50, 'approved')).toEqual([]);
      expect((await decided('acme', 121)).map((r) => r.id)).toEqual([...denials].reverse().concat(first));
    });

    it('keeps decided requests within the history: the oldest past its count go, and all past its age', async () => {
      const { clock } = ctx();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push(await open({ sessionId: `s${i}` }));
        clock.advance(1);
        await decide(ids[i]!, decision('denied', { history: { ttlMs: 60_000, count: 2 } }));
      }
      expect((await decided()).map((r) => r.id)).toEqual([ids[2], ids[1]]);
      expect((await decided(null)).map((r) => r.id)).toEqual([ids[2], ids[1]]);
      clock.advance(60_000);
      expect(await decided()).toEqual([]);
      expect(await decided(null)).toEqual([]);
    });

    it('opens at most maxPending pending requests per tenant: past it approval_limit, until one is decided or expires', async () => {
      const { clock } = ctx();
      const bounded = (session: string, tenant = 'acme') =>
        call({ tenant, sessionId: session, approval: { argsHash: 'h1', ttlMs: TTL, maxPending: 2, open: OPEN } });
      const first = pendingId(await admit1(bounded('s1')));
      clock.advance(10);
      const second = pendingId(await admit1(bounded('s2')));
      clock.advance(10);
      expect(await admit1(bounded('s3'))).toEqual({ outcome: 'approval_limit', retryAfterMs: TTL - 20 });
      // A request already pending is answered as before, and another tenant has its own count.
      expect(await admit1(bounded('s1'))).toEqual({ outcome: 'approval_pending', approvalId: first });
      pendingId(await admit1(bounded('s1', 'globex')));
      expect((await pending()).map((r) => r.id)).toEqual([first, second]);

      await decide(first, decision('denied'));
      const third = pendingId(await admit1(bounded('s3')));
      expect((await admit1(bounded('s4'))).outcome).toBe('approval_limit');
      clock.advance(TTL - 10);
      // The second expired: its place is free again.
      expect(pendingId(await admit1(bounded('s4')))).not.toBe(third);
      expect((await pending()).map((r) => r.id)).toEqual([third, expect.any(String)]);
    });

    it('does not consume an approval when a later gate stops the call', async () => {
      const { store, clock } = ctx();
      const id = await open();
      await decide(id, decision('approved'));
      await store.settle(
        [1, 2, 3].map(() => ({
          tenant: 'acme',
          sessionId: 's1',
          callId: 'c1',
          tool: 'Edit',
          breaker: { scope: 'Edit', failureThreshold: 3, recoveryMs: 300_000, outcome: 'failure' as const, probe: false },
        })),
        clock.now(),
      );
      expect((await admit1(ask())).outcome).toBe('circuit_open');
      await store.resetCircuit('Edit');
      expect((await admit1(ask())).outcome).toBe('admitted');
    });
  });
}
