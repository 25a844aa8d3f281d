/** How the call was decided: the policy's allow/deny/ask, or an operator's decision on the approval it asked for. */
export type AuditDecision = 'allow' | 'deny' | 'ask' | 'approved' | 'denied';

/** One call of a request, as the trail keeps it: who asked, what, who decided, what came of it. Never the output, only its hash. */
export interface CallEntry {
  kind: 'call';
  tenant: string;
  key_id: string;
  session_id: string;
  request_id: string;
  call_id: string;
  tool: string;
  /** sha256 of the canonical JSON of the arguments as parsed; null when they did not parse. */
  arguments_sha256: string | null;
  /** The arguments with secrets redacted; null when they did not parse. */
  arguments: unknown;
  /** Null for a call stopped before the permission gate (unknown tool, arguments that do not parse or validate). */
  decision: AuditDecision | null;
  /** Why the policy decided so: `policy rule N`, `no rule matched`, `the tool requires approval`, … */
  policy_reason?: string;
  approval_id?: string;
  /** The key id of the operator who decided the approval. */
  decided_by?: string;
  status: 'success' | 'partial' | 'error';
  error_code?: string;
  /** sha256 of the payload the caller was answered (its serialized JSON); absent for errors answered before the tool ran. */
  result_sha256?: string;
  replayed: boolean;
}

/** An operator's decision on an approval request, when it is taken. */
interface ApprovalEntry {
  kind: 'approval';
  tenant: string;
  key_id: string;
  session_id: string;
  request_id: string;
  tool: string;
  approval_id: string;
  decision: 'approved' | 'denied';
  decided_by: string;
  reason?: string;
}

/** The trail's own note: writing resumed after an outage, and how many records were dropped during it. */
interface TrailEntry {
  kind: 'trail';
  event: 'resumed';
  dropped: number;
}

export type AuditEntry = CallEntry | ApprovalEntry | TrailEntry;

/** A record as written: the entry, where it sits in its replica's chain, and the chain's hashes. */
export type AuditRecord = AuditEntry & {
  seq: number;
  /** ISO 8601, UTC, milliseconds. */
  time: string;
  replica: string;
  prev: string;
  hash: string;
};
