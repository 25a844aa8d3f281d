export type AuditDecision = 'allow' | 'deny' | 'ask' | 'approved' | 'denied';

/** One call of a request: who asked, what, who decided, what came of it. Never the output, only its hash. */
export interface CallEntry {
  kind: 'call';
  tenant: string;
  key_id: string;
  /** The person the call was for (x-toolgate-user, a token's subject); absent: the key's own call. */
  user?: string;
  session_id: string;
  request_id: string;
  call_id: string;
  tool: string;
  arguments_sha256: string | null;
  arguments: unknown;
  /** Null for a call stopped before the permission gate. */
  decision: AuditDecision | null;
  policy_reason?: string;
  approval_id?: string;
  decided_by?: string;
  status: 'success' | 'partial' | 'error';
  error_code?: string;
  /** sha256 of the payload answered; absent for errors answered before the tool ran. */
  result_sha256?: string;
  replayed: boolean;
}

interface ApprovalEntry {
  kind: 'approval';
  tenant: string;
  key_id: string;
  /** The person the decided call is for, as the approval names them. */
  user?: string;
  session_id: string;
  request_id: string;
  tool: string;
  approval_id: string;
  decision: 'approved' | 'denied';
  decided_by: string;
  reason?: string;
}

/** Writing resumed after an outage, and how many records were dropped during it. */
interface TrailEntry {
  kind: 'trail';
  event: 'resumed';
  dropped: number;
}

export type AuditEntry = CallEntry | ApprovalEntry | TrailEntry;

export type AuditRecord = AuditEntry & {
  seq: number;
  time: string;
  replica: string;
  prev: string;
  hash: string;
};
