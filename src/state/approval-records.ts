import { randomBytes } from 'node:crypto';
import type { ApprovalRecord } from '../protocol/approval.js';
import type { AdmitRequest } from './admission.js';
import type { ApprovalDecision, ApprovalOpening } from './approvals.js';

/** A new approval request's id; drawn in TypeScript for the Redis store too, as random numbers inside a Lua script are deterministic. */
export function newApprovalId(): string {
  return `apr_${randomBytes(16).toString('base64url')}`;
}

/** How both stores list pending approvals: oldest first, ties by id, so a listing is stable. */
export function byCreation(a: ApprovalRecord, b: ApprovalRecord): number {
  return a.created_at - b.created_at || a.id.localeCompare(b.id);
}

export function byDecision(a: ApprovalRecord, b: ApprovalRecord): number {
  return (b.decided_at ?? 0) - (a.decided_at ?? 0) || a.id.localeCompare(b.id);
}

export function openedRecord(r: AdmitRequest, open: ApprovalOpening, id: string, ttlMs: number, now: number): ApprovalRecord {
  return {
    id,
    tenant: r.tenant,
    session_id: r.sessionId,
    ...(r.user !== undefined && { user: r.user }),
    tool: open.tool,
    arguments: open.arguments,
    preview: open.preview,
    status: 'pending',
    created_at: now,
    expires_at: now + ttlMs,
  };
}

export function decidedRecord(record: ApprovalRecord, decision: ApprovalDecision, now: number): ApprovalRecord {
  const decided: ApprovalRecord = { ...record, status: decision.status, decided_at: now, decided_by: decision.by };
  if (decision.reason !== undefined) decided.reason = decision.reason;
  return decided;
}

/** An approval whose call did not come back before the request expired admits nothing, and says so. */
export function asKept(record: ApprovalRecord, ran: boolean, now: number): ApprovalRecord {
  return record.status === 'approved' && !ran && record.expires_at <= now ? { ...record, status: 'expired' } : record;
}
