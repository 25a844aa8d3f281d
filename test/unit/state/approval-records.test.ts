import { describe, expect, it } from 'vitest';
import type { ApprovalRecord } from '../../../src/protocol/approval.js';
import { asKept, byCreation, byDecision, newApprovalId } from '../../../src/state/approval-records.js';

const record = (id: string, extra: Partial<ApprovalRecord> = {}): ApprovalRecord =>
  ({ id, status: 'pending', created_at: 1, expires_at: 100, ...extra }) as ApprovalRecord;

describe('approval records', () => {
  it('draw ids that differ, with their prefix', () => {
    const [a, b] = [newApprovalId(), newApprovalId()];
    expect(a).toMatch(/^apr_[\w-]{22}$/);
    expect(a).not.toBe(b);
  });

  it('list pending ones oldest first, ties by id; decided ones latest decision first', () => {
    const pending = [record('b', { created_at: 2 }), record('c', { created_at: 1 }), record('a', { created_at: 2 })];
    expect(pending.sort(byCreation).map((r) => r.id)).toEqual(['c', 'a', 'b']);
    const decided = [record('x', { decided_at: 5 }), record('y', { decided_at: 9 })];
    expect(decided.sort(byDecision).map((r) => r.id)).toEqual(['y', 'x']);
  });

  it('show an approval whose call did not run before it expired as expired', () => {
    const approved = record('a', { status: 'approved', expires_at: 100 });
    expect(asKept(approved, false, 100).status).toBe('expired');
    expect(asKept(approved, false, 99).status).toBe('approved');
    expect(asKept(approved, true, 100).status).toBe('approved');
    expect(asKept(record('d', { status: 'denied' }), false, 100).status).toBe('denied');
  });
});
