import type { ApprovalRecord } from '../../protocol/approval.js';
import { asKept, byCreation, byDecision, decidedRecord, newApprovalId, openedRecord } from '../approval-records.js';
import type { Admission, AdmitRequest } from '../admission.js';
import type { ApprovalDecision, ApprovalQuery, DecideOutcome } from '../approvals.js';

type ApprovalStop = Extract<Admission, { outcome: 'approval_absent' | 'approval_pending' | 'approval_denied' | 'approval_limit' }>;

/** A decided request kept for listing and lookup, and whether its approved call ran. */
interface Kept {
  record: ApprovalRecord;
  ran: boolean;
  until: number;
}

/** Approvals (lua/includes/approval.lua, lua/decide.lua for Redis); an approved request admits one call. */
export class MemoryApprovals {
  private readonly byKey = new Map<string, ApprovalRecord>();
  private readonly keyOfId = new Map<string, string>();
  private readonly decided = new Map<string, Kept>();

  /** A pending or denied request stops the call (a new one is opened when none is live and `open` says how); an approved one passes. */
  check(key: string, r: AdmitRequest, approval: NonNullable<AdmitRequest['approval']>, now: number): ApprovalStop | 'approved' {
    const found = this.live(key, now);
    if (!found) {
      if (!approval.open) return { outcome: 'approval_absent' };
      const full = approval.maxPending === undefined ? undefined : this.full(r.tenant, approval.maxPending, now);
      if (full) return full;
      const record = openedRecord(r, structuredClone(approval.open), newApprovalId(), approval.ttlMs, now);
      this.byKey.set(key, record);
      this.keyOfId.set(record.id, key);
      return { outcome: 'approval_pending', approvalId: record.id, opened: structuredClone(record) };
    }
    if (found.status === 'pending') return { outcome: 'approval_pending', approvalId: found.id };
    if (found.status === 'denied') {
      const denied = { outcome: 'approval_denied', approvalId: found.id, decidedBy: found.decided_by ?? '' } as const;
      return found.reason === undefined ? denied : { ...denied, reason: found.reason };
    }
    return 'approved';
  }

  approved(key: string): { id: string; decidedBy: string } | undefined {
    const record = this.byKey.get(key);
    return record && { id: record.id, decidedBy: record.decided_by ?? '' };
  }

  /** An approval admits its call once; its kept record remembers that it ran. */
  consume(key: string): void {
    const record = this.byKey.get(key);
    if (!record) return;
    const kept = this.decided.get(record.id);
    if (kept) kept.ran = true;
    this.drop(key);
  }

  list(tenant: string | null, query: ApprovalQuery, now: number): ApprovalRecord[] {
    this.sweep(now);
    const mine = (record: ApprovalRecord) => tenant === null || record.tenant === tenant;
    if (query.status === 'pending') {
      const pending = [...this.byKey.values()].filter((record) => record.status === 'pending' && mine(record));
      return pending
        .sort(byCreation)
        .slice(0, query.limit)
        .map((record) => structuredClone(record));
    }
    const kept = [...this.decided.values()].filter((entry) => mine(entry.record));
    return kept
      .map((entry) => asKept(structuredClone(entry.record), entry.ran, now))
      .filter((record) => query.status === 'decided' || record.status === query.status)
      .sort(byDecision)
      .slice(0, query.limit);
  }

  get(id: string, tenant: string | null, now: number): ApprovalRecord | null {
    const found = this.find(id, now);
    if (!found || (tenant !== null && found.record.tenant !== tenant)) return null;
    return found.kept ? asKept(structuredClone(found.record), found.kept.ran, now) : structuredClone(found.record);
  }

  decide(id: string, tenant: string | null, decision: ApprovalDecision, now: number): DecideOutcome | null {
    const found = this.find(id, now);
    if (!found || (tenant !== null && found.record.tenant !== tenant)) return null;
    if (found.kept || found.record.status !== 'pending') {
      return { outcome: 'already', record: asKept(structuredClone(found.record), found.kept?.ran ?? false, now) };
    }
    const record = decidedRecord(found.record, decision, now);
    this.byKey.set(this.keyOfId.get(id)!, record);
    this.decided.set(id, { record: structuredClone(record), ran: false, until: now + decision.history.ttlMs });
    // The count is per tenant: only that tenant's oldest decisions go.
    let over = -decision.history.count;
    for (const kept of this.decided.values()) if (kept.record.tenant === record.tenant) over++;
    for (const [old, kept] of this.decided) {
      if (over <= 0) break;
      if (kept.record.tenant !== record.tenant) continue;
      this.decided.delete(old);
      over--;
    }
    return { outcome: 'decided', record: structuredClone(record) };
  }

  /** `approval_limit` when `tenant` has `max` pending requests or more, retryable when the first of them expires. */
  private full(tenant: string, max: number, now: number): ApprovalStop | undefined {
    let count = 0;
    let first = Infinity;
    for (const record of this.byKey.values()) {
      if (record.tenant !== tenant || record.status !== 'pending' || record.expires_at <= now) continue;
      count++;
      first = Math.min(first, record.expires_at);
    }
    return count < max ? undefined : { outcome: 'approval_limit', retryAfterMs: Math.max(1, first - now) };
  }

  countPending(now: number): number {
    let count = 0;
    for (const record of this.byKey.values()) if (record.status === 'pending' && record.expires_at > now) count++;
    return count;
  }

  sweep(now: number): void {
    for (const [key, approval] of this.byKey) if (approval.expires_at <= now) this.drop(key);
    for (const [id, kept] of this.decided) if (kept.until <= now) this.decided.delete(id);
  }

  private find(id: string, now: number): { record: ApprovalRecord; kept?: Kept } | undefined {
    const kept = this.decided.get(id);
    if (kept && kept.until > now) return { record: kept.record, kept };
    const key = this.keyOfId.get(id);
    const record = key === undefined ? undefined : this.live(key, now);
    return record?.id === id ? { record } : undefined;
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
