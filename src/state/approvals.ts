import type { ApprovalFilter, ApprovalPreview, ApprovalRecord } from '../protocol/approval.js';

/** What a new approval request shows the person who decides it. */
export interface ApprovalOpening {
  tool: string;
  /** Arguments with secrets redacted, for the approver to read. */
  arguments: unknown;
  preview: ApprovalPreview;
}

/**
 * Which approvals a listing wants: pending ones oldest first, or decided ones
 * most recently decided first, all of them (`decided`) or those of one status.
 */
export interface ApprovalQuery {
  status: ApprovalFilter;
  limit: number;
}

/** An operator's decision, and how long and how many decided requests the store keeps for listing and lookup. */
export interface ApprovalDecision {
  status: 'approved' | 'denied';
  /** The deciding key's id. */
  by: string;
  reason?: string;
  history: { ttlMs: number; count: number };
}

/** `decided`: this decision was taken; `already`: an earlier one had been, and stands (the record says whose). */
export type DecideOutcome = { outcome: 'decided' | 'already'; record: ApprovalRecord };

/** Approval requests as operators see them: listed, looked up, decided, counted. Admission opens and consumes them. */
export interface ApprovalStore {
  /** A tenant's approvals (every tenant's when null), at most `query.limit`. */
  listApprovals(tenant: string | null, query: ApprovalQuery, now: number): Promise<ApprovalRecord[]>;
  /** One approval, pending or kept after its decision; null when unknown, expired undecided, or another tenant's. */
  getApproval(id: string, tenant: string | null, now: number): Promise<ApprovalRecord | null>;
  /** Decide a pending request; null when there is none by this id for the tenant (unknown, expired, another tenant's). */
  decideApproval(id: string, tenant: string | null, decision: ApprovalDecision, now: number): Promise<DecideOutcome | null>;
  /** Every tenant's pending requests, counted (the pending-approvals gauge). */
  countPendingApprovals(now: number): Promise<number>;
}
