import { scopeTenant } from '../breaker-scope.js';
import type { CallRef } from '../state-store.js';

/**
 * Every Redis key toolgate writes, built here and nowhere else:
 * `{<prefix>:<slot…>}:<kind>:<id…>`, the braces being the Redis Cluster hash
 * tag, which decides the key's slot.
 *
 * Slots (see docs/replicas.md, "Sharding and capacity"):
 * - `{<prefix>:tenant:<tenant>}`: everything of one tenant (call-id and
 *   Idempotency-Key records, approvals, the tenant's approval index and its
 *   decided approvals kept for listing and lookup, Read
 *   locks, rate-limit buckets, and the tenant's own breakers when breakers are
 *   per tenant). A batch is one tenant's, so its tenant work is one script in
 *   one slot, and tenants spread over the cluster.
 * - `{<prefix>:breakers}`: the breakers every tenant shares; a batch checks
 *   them in a script of their own (store.ts says in which order).
 * - `{<prefix>:approvals}`: the indexes of every tenant's approvals, pending
 *   and decided, and the id → approval pointers, for an admin who decides by
 *   id alone.
 * - `{<prefix>:hit:<subject>}`: one failed-login counter each.
 *
 * Parts are URI-encoded, so `:` inside a tenant, session or path cannot make
 * two keys collide, and `{`/`}` cannot move the hash tag.
 */
export class RedisKeys {
  private readonly breakers: string;
  private readonly approvals: string;

  constructor(private readonly prefix: string) {
    if (/[{}]/.test(prefix)) throw new Error(`Redis key prefix must not contain braces: ${prefix}`);
    this.breakers = this.tag('breakers');
    this.approvals = this.tag('approvals');
  }

  private tag(...parts: string[]): string {
    return `{${[this.prefix, ...parts.map(encodeURIComponent)].join(':')}}`;
  }

  private key(tag: string, kind: string, ...parts: string[]): string {
    return [tag, kind, ...parts.map(encodeURIComponent)].join(':');
  }

  /** The hash tag of one tenant's slot. */
  tenant(tenant: string): string {
    return this.tag('tenant', tenant);
  }

  /** Replay record of one call: lease while running, result once done. */
  call(ref: CallRef): string {
    return this.key(this.tenant(ref.tenant), 'call', ref.sessionId, ref.callId);
  }

  /** Whole-request Idempotency-Key record. */
  request(tenant: string, idempotencyKey: string): string {
    return this.key(this.tenant(tenant), 'request', idempotencyKey);
  }

  /** The approval request for one set of arguments of one tool in one session. */
  approval(tenant: string, sessionId: string, tool: string, argsHash: string): string {
    return this.key(this.tenant(tenant), 'approval', sessionId, tool, argsHash);
  }

  /** Approval id → the approval key, so an admin can decide by id. */
  approvalId(id: string): string {
    return this.key(this.approvals, 'approval-id', id);
  }

  /** Sorted set of pending approval keys by expiry, in the tenant's slot, or of all tenants for null. */
  approvalIndex(tenant: string | null): string {
    return tenant === null ? this.key(this.approvals, 'approvals-all') : this.key(this.tenant(tenant), 'approvals');
  }

  /** Sorted set of decided approval ids by decision time, in the tenant's slot, or of all tenants for null. */
  decidedIndex(tenant: string | null): string {
    return tenant === null ? this.key(this.approvals, 'approvals-decided-all') : this.key(this.tenant(tenant), 'approvals-decided');
  }

  /** Hash of a tenant's decided approvals: id → the record as decided, `ran:<id>` once its call ran. */
  approvalHistory(tenant: string): string {
    return this.key(this.tenant(tenant), 'approval-history');
  }

  /** The tenant slot's hash tag of an approval key, as the id pointer leads to it; its history is in that slot. */
  slotOf(approvalKey: string): string {
    return approvalKey.slice(0, approvalKey.indexOf('}') + 1);
  }

  /**
   * The approval keys of the tenant an approval key belongs to: as {@link approvalIndex}, {@link decidedIndex} and {@link approvalHistory}.
   */
  tenantApprovalKeys(approvalKey: string): { pending: string; decided: string; history: string } {
    const tag = this.slotOf(approvalKey);
    return { pending: this.key(tag, 'approvals'), decided: this.key(tag, 'approvals-decided'), history: this.key(tag, 'approval-history') };
  }

  lock(tenant: string, sessionId: string, path: string): string {
    return this.key(this.tenant(tenant), 'lock', sessionId, path);
  }

  /** A shared breaker (one probe across all replicas and tenants) in the breakers' slot, a tenant's own in its slot. */
  breaker(scope: string): string {
    const tenant = scopeTenant(scope);
    return this.key(tenant === null ? this.breakers : this.tenant(tenant), 'breaker', scope);
  }

  /** Token bucket of a subject (an API key, which carries its tenant) for one tool, in the calling tenant's slot. */
  rate(tenant: string, subject: string, tool: string): string {
    return this.key(this.tenant(tenant), 'rate', subject, tool);
  }

  /** Fixed-window counter; the window start is part of the key, so a window is one key. */
  hit(subject: string, windowStart: number): string {
    return this.key(this.tag('hit', subject), 'hit', String(windowStart));
  }

  /**
   * The prefix BullMQ puts before its own keys (`<this>:<queue>:<kind>…`):
   * under a hash tag of its own, so a Cluster keeps each queue's keys (which
   * its scripts touch together) in one slot, and apart from every kind above.
   */
  queuePrefix(): string {
    return `{${this.prefix}}:queue`;
  }
}

/**
 * The part of a key Redis Cluster hashes: what is inside the first `{…}`
 * when that is not empty, else the whole key (the Cluster specification's
 * rule). Keys in the same slot group run in one script.
 */
export function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  return close <= open + 1 ? key : key.slice(open + 1, close);
}
