import { byCreation, newApprovalId } from '../approval-records.js';
import type { Admission, AdmitRequest, ApprovalRecord } from '../state-store.js';

type ApprovalStop = Extract<Admission, { outcome: 'approval_pending' | 'approval_denied' }>;

/**
 * The approval transitions of the memory store (as lua/includes/approval.lua
 * and lua/decide.lua for Redis): admission opens a pending request for a
 * call's arguments, or answers with the one there, and an approved request
 * is consumed by the one call it admits; an operator decides pending ones.
 */
export class MemoryApprovals {
  private readonly byKey = new Map<string, ApprovalRecord>();
  /** Approval id → its key, so an operator can decide by id. */
  private readonly keyOfId = new Map<string, string>();

  /** A pending or denied request stops the call (a new one is opened when none is live); an approved one passes. */
  check(key: string, tenant: string, sessionId: string, approval: NonNullable<AdmitRequest['approval']>, now: number): ApprovalStop | 'approved' {
    const found = this.live(key, now);
    if (!found) {
      const record: ApprovalRecord = {
        id: newApprovalId(),
        tenant,
        session_id: sessionId,
        tool: approval.summary.tool,
        arguments: structuredClone(approval.summary.arguments),
        status: 'pending',
        created_at: now,
        expires_at: now + approval.ttlMs,
      };
      this.byKey.set(key, record);
      this.keyOfId.set(record.id, key);
      return { outcome: 'approval_pending', approvalId: record.id };
    }
    if (found.status === 'pending') return { outcome: 'approval_pending', approvalId: found.id };
    if (found.status === 'denied') {
      return found.reason === undefined
        ? { outcome: 'approval_denied', approvalId: found.id }
        : { outcome: 'approval_denied', approvalId: found.id, reason: found.reason };
    }
    return 'approved';
  }

  /** An approval admits its call once. */
  consume(key: string): void {
    this.drop(key);
  }

  list(tenant: string | null, now: number): ApprovalRecord[] {
    const found: ApprovalRecord[] = [];
    for (const [key, approval] of this.byKey) {
      if (approval.expires_at <= now) this.drop(key);
      else if (tenant === null || approval.tenant === tenant) found.push(structuredClone(approval));
    }
    return found.sort(byCreation);
  }

  decide(approvalId: string, tenant: string | null, decision: 'approved' | 'denied', reason: string | undefined, now: number): ApprovalRecord | null {
    const key = this.keyOfId.get(approvalId);
    const record = key === undefined ? undefined : this.live(key, now);
    if (!record || record.status !== 'pending' || (tenant !== null && record.tenant !== tenant)) return null;
    record.status = decision;
    if (reason !== undefined) record.reason = reason;
    return structuredClone(record);
  }

  sweep(now: number): void {
    for (const [key, approval] of this.byKey) if (approval.expires_at <= now) this.drop(key);
  }

  private live(key: string, now: number): ApprovalRecord | undefined {
    const approval = this.byKey.get(key);
    if (approval && approval.expires_at <= now) {
      this.drop(key);
      return undefined;
    }
    return approval;
  }

  private drop(key: string): void {
    const approval = this.byKey.get(key);
    if (!approval) return;
    this.byKey.delete(key);
    this.keyOfId.delete(approval.id);
  }
}
