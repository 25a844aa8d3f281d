import type { ApprovalRecord } from '../protocol/approval.js';
import type { BreakerSettings } from '../shared/settings.js';
import type { ApprovalOpening } from './approvals.js';

/** mtime and size of a file as a Read saw it; the lock an Edit or Write is checked against. */
export interface LockMeta {
  file_mtime_ms: number;
  file_size_bytes: number;
}

/** A finished call result as stored for replay: JSON, already within the per-call budget. */
export type StoredResult = Record<string, unknown>;

/** Identifies one call of one session of one tenant, and of one user when it is for one. */
export interface CallRef {
  tenant: string;
  sessionId: string;
  callId: string;
  /**
   * The person the call is for (Caller.user): what a session leaves (replay records, Read locks, approvals) is that user's alone, so two
   * users of one key sharing a session id never see each other's.
   */
  user?: string;
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
   * a request that will be made, and a call asking again sends none. With
   * `maxPending`, a request is opened only while the tenant has fewer
   * pending ones; past it the answer is `approval_limit`.
   */
  approval?: { argsHash: string; ttlMs: number; maxPending?: number; open?: ApprovalOpening };
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
  /** `decidedBy`: the key id of who denied it, for the call's audit record. */
  | { outcome: 'approval_denied'; approvalId: string; decidedBy: string; reason?: string }
  /** The tenant's pending requests are at `maxPending`: `retryAfterMs` until the first of them expires. */
  | { outcome: 'approval_limit'; retryAfterMs: number }
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

/**
 * The state the gates of one call read and leave behind: call-id replay,
 * approval, the Read lock, the breaker and the rate limit, decided for a
 * whole batch at once.
 */
export interface AdmissionStore {
  /** Decide a batch of calls; one answer per request, in order. */
  admit(requests: AdmitRequest[], now: number): Promise<Admission[]>;
  /** Record the outcomes of executed calls. */
  settle(requests: SettleRequest[], now: number): Promise<void>;
  /** Wait for the stored result of a call another request is running; null when `timeoutMs` passes first. */
  awaitResult(ref: CallRef, timeoutMs: number): Promise<StoredResult | null>;
}
