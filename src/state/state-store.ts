import type { ApprovalPreview, ApprovalRecord } from '../protocol/approval.js';
import type { BreakerSettings } from '../shared/settings.js';

/** mtime and size of a file as a Read saw it; the lock an Edit or Write is checked against. */
export interface LockMeta {
  file_mtime_ms: number;
  file_size_bytes: number;
}

export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitStatus {
  scope: string;
  state: CircuitState;
  failures: number;
  /** When an open breaker lets its probe through (epoch ms); null unless open. */
  reopens_at: number | null;
}

/** A finished call result as stored for replay: JSON, already within the per-call budget. */
export type StoredResult = Record<string, unknown>;

/** Identifies one call of one session of one tenant. */
export interface CallRef {
  tenant: string;
  sessionId: string;
  callId: string;
}

/**
 * Everything the state-dependent gates need to decide one call, asked in one
 * go so a store can answer a whole batch in one round trip. Checks happen in
 * this order and the first that stops the call wins; nothing is taken (lease,
 * approval, probe slot, rate token) unless the call is admitted.
 */
export interface AdmitRequest extends CallRef {
  tool: string;
  /** Call-id replay for side-effecting calls. */
  replay?: { fingerprint: string; leaseMs: number };
  /**
   * The policy said ASK: an approved request for these arguments admits the
   * call once. Where no request is live, one is opened with `open`; without
   * it the answer is `approval_absent`, so the preview is computed only for
   * a request that will be made, and a call asking again sends none.
   */
  approval?: { argsHash: string; ttlMs: number; open?: ApprovalOpening };
  /** Fetch the session's last lock metadata for this workspace path. */
  lockPath?: string;
  breaker: { scope: string } & BreakerSettings;
  rateLimit?: { subject: string; perMinute: number };
}

export type Admission =
  /** `approval`: the approved request that admitted an ASKed call, and the key id of who approved it. */
  | { outcome: 'admitted'; lock: LockMeta | null; probe: boolean; approval?: { id: string; decidedBy: string } }
  | { outcome: 'replayed'; result: StoredResult }
  | { outcome: 'in_flight' }
  | { outcome: 'mismatch' }
  | { outcome: 'approval_absent' }
  /** `opened`: the request this very admission made, as stored. */
  | { outcome: 'approval_pending'; approvalId: string; opened?: ApprovalRecord }
  | { outcome: 'approval_denied'; approvalId: string; reason?: string }
  | { outcome: 'circuit_open'; retryAfterMs: number }
  | { outcome: 'rate_limited'; retryAfterMs: number };

/** What an executed call leaves behind. */
export interface SettleRequest extends CallRef {
  tool: string;
  /** `neutral`: the tool answered but the caller was wrong (NOT_FOUND, CONFLICT, 4xx); counts neither way. */
  breaker: { scope: string; outcome: 'success' | 'failure' | 'neutral'; probe: boolean } & BreakerSettings;
  lock?: { path: string; meta: LockMeta; ttlMs: number };
  replay?: { result: StoredResult; ttlMs: number };
}

/** What a new approval request shows the person who decides it. */
export interface ApprovalOpening {
  tool: string;
  /** Arguments with secrets redacted, for the approver to read. */
  arguments: unknown;
  preview: ApprovalPreview;
}

/** Which approvals a listing wants: pending ones oldest first, or decided ones most recently decided first. */
export interface ApprovalQuery {
  status: 'pending' | 'decided';
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

/** Outcome of claiming a whole-request Idempotency-Key. */
export type RequestClaim =
  { outcome: 'claimed' } | { outcome: 'done'; response: StoredResult } | { outcome: 'in_flight' } | { outcome: 'mismatch' };

/**
 * Shared gateway state: breakers, rate limits, Read locks, replay records and
 * approvals. All values are JSON; all times are epoch ms from the caller's
 * clock. Implementations throw `StateUnavailableError` when they cannot answer.
 */
export interface StateStore {
  /** Decide a batch of calls; one answer per request, in order. */
  admit(requests: AdmitRequest[], now: number): Promise<Admission[]>;
  /** Record the outcomes of executed calls. */
  settle(requests: SettleRequest[], now: number): Promise<void>;
  /** Wait for the stored result of a call another request is running; null when `timeoutMs` passes first. */
  awaitResult(ref: CallRef, timeoutMs: number): Promise<StoredResult | null>;

  claimRequest(tenant: string, key: string, fingerprint: string, leaseMs: number): Promise<RequestClaim>;
  completeRequest(tenant: string, key: string, response: StoredResult, ttlMs: number): Promise<void>;
  releaseRequest(tenant: string, key: string): Promise<void>;
  awaitRequest(tenant: string, key: string, timeoutMs: number): Promise<StoredResult | null>;

  circuits(scopes: string[], now: number): Promise<CircuitStatus[]>;
  resetCircuit(scope: string): Promise<void>;

  /** A tenant's approvals (every tenant's when null), at most `query.limit`. */
  listApprovals(tenant: string | null, query: ApprovalQuery, now: number): Promise<ApprovalRecord[]>;
  /** One approval, pending or kept after its decision; null when unknown, expired undecided, or another tenant's. */
  getApproval(id: string, tenant: string | null, now: number): Promise<ApprovalRecord | null>;
  /** Decide a pending request; null when there is none by this id for the tenant (unknown, expired, another tenant's). */
  decideApproval(id: string, tenant: string | null, decision: ApprovalDecision, now: number): Promise<DecideOutcome | null>;
  /** Every tenant's pending requests, counted (the pending-approvals gauge). */
  countPendingApprovals(now: number): Promise<number>;

  /**
   * Add `cost` (default 1; 0 only reads) to a fixed-window counter and say
   * whether it is still within `limit`; used to slow down failed authentication.
   */
  hit(subject: string, limit: number, windowMs: number, now: number, cost?: number): Promise<{ allowed: boolean; retryAfterMs: number }>;

  ping(): Promise<void>;
  close(): Promise<void>;
}

export class StateUnavailableError extends Error {
  constructor(message = 'state store unavailable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StateUnavailableError';
  }
}
