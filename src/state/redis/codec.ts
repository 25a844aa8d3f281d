import type { ApprovalPreview, ApprovalRecord, ApprovalStatus } from '../../protocol/approval.js';
import type { Admission, StoredResult } from '../admission.js';

/** Twice the recovery time, so an open breaker never silently closes; idle failures are forgotten after a day. */
const BREAKER_MIN_TTL_MS = 86_400_000;

export type AdmitReply =
  | { o: 'admitted'; lock?: string; probe: boolean; aid?: string; by?: string }
  | { o: 'replayed'; r: string }
  | { o: 'in_flight' | 'mismatch' }
  | { o: 'approval_absent' }
  | { o: 'approval_pending'; id: string; exp: number; new?: boolean }
  | { o: 'approval_denied'; id: string; reason?: string; by?: string }
  | { o: 'circuit_open' | 'rate_limited' | 'approval_limit'; retry: number };

/** Scripts name their keys by 1-based KEYS index; a key several calls share is passed once. */
export class KeyList {
  readonly keys: string[] = [];
  private readonly index = new Map<string, number>();

  add(key: string): number {
    let at = this.index.get(key);
    if (at === undefined) {
      at = this.keys.push(key);
      this.index.set(key, at);
    }
    return at;
  }
}

export function breakerTtl(settings: { recoveryMs: number }): number {
  return Math.max(BREAKER_MIN_TTL_MS, 2 * settings.recoveryMs);
}

export function toAdmission(reply: AdmitReply): Admission {
  switch (reply.o) {
    case 'admitted': {
      const admitted: Admission = {
        outcome: 'admitted',
        lock: reply.lock === undefined ? null : JSON.parse(reply.lock),
        probe: reply.probe,
      };
      return reply.aid === undefined ? admitted : { ...admitted, approval: { id: reply.aid, decidedBy: reply.by ?? '' } };
    }
    case 'replayed':
      return { outcome: 'replayed', result: JSON.parse(reply.r) as StoredResult };
    case 'approval_pending':
      return { outcome: 'approval_pending', approvalId: reply.id };
    case 'approval_denied': {
      const denied = { outcome: 'approval_denied', approvalId: reply.id, decidedBy: reply.by ?? '' } as const;
      return reply.reason === undefined ? denied : { ...denied, reason: reply.reason };
    }
    case 'circuit_open':
    case 'rate_limited':
    case 'approval_limit':
      return { outcome: reply.o, retryAfterMs: reply.retry };
    default:
      return { outcome: reply.o };
  }
}

export function toApprovalRecord(hash: Record<string, string>): ApprovalRecord {
  const args: unknown = JSON.parse(hash.arguments ?? 'null');
  const record: ApprovalRecord = {
    id: hash.id ?? '',
    tenant: hash.tenant ?? '',
    session_id: hash.session_id ?? '',
    tool: hash.tool ?? '',
    arguments: args,
    // A request opened by an earlier version, without a preview, shows its arguments.
    preview: hash.preview === undefined ? { kind: 'arguments', arguments: args } : (JSON.parse(hash.preview) as ApprovalPreview),
    status: hash.status as ApprovalStatus,
    created_at: Number(hash.created_at),
    expires_at: Number(hash.expires_at),
  };
  if (hash.user !== undefined) record.user = hash.user;
  if (hash.decided_at !== undefined) record.decided_at = Number(hash.decided_at);
  if (hash.decided_by !== undefined) record.decided_by = hash.decided_by;
  if (hash.reason !== undefined) record.reason = hash.reason;
  return record;
}

/** A record as decide.lua keeps it (the hash as a JSON array of field, value), unless the history has forgotten it by `now`. */
export function fromKept(json: string, now: number): ApprovalRecord | null {
  const hash = hashOf(JSON.parse(json) as string[]);
  return Number(hash.kept_until) > now ? toApprovalRecord(hash) : null;
}

export function hashOf(flat: readonly string[]): Record<string, string> {
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i] as string] = flat[i + 1] as string;
  return hash;
}
