import { scopeTenant } from '../breaker-scope.js';
import type { CallRef } from '../admission.js';

/**
 * Every Redis key, built here only: `{<prefix>:<slot…>}:<kind>:<id…>`, the
 * braces being the Cluster hash tag. Slots (docs/replicas.md, "Sharding and
 * capacity"): one per tenant (everything of the tenant, its own breakers
 * included), `breakers` (shared ones), `approvals` (global indexes and id
 * pointers), one per hit subject. Parts are URI-encoded so no part can
 * forge a separator or move the hash tag.
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

  /** A user's part (CallRef.user) comes last: a session's state for one user is never another's, nor the key's own. */
  private key(tag: string, kind: string, ...parts: Array<string | undefined>): string {
    return [tag, kind, ...parts.filter((part) => part !== undefined).map(encodeURIComponent)].join(':');
  }

  tenant(tenant: string): string {
    return this.tag('tenant', tenant);
  }

  call(ref: CallRef): string {
    return this.key(this.tenant(ref.tenant), 'call', ref.sessionId, ref.callId, ref.user);
  }

  request(tenant: string, idempotencyKey: string): string {
    return this.key(this.tenant(tenant), 'request', idempotencyKey);
  }

  approval(tenant: string, sessionId: string, tool: string, argsHash: string, user?: string): string {
    return this.key(this.tenant(tenant), 'approval', sessionId, tool, argsHash, user);
  }

  approvalId(id: string): string {
    return this.key(this.approvals, 'approval-id', id);
  }

  /** Pending approval keys by expiry: the tenant's, or every tenant's for null. */
  approvalIndex(tenant: string | null): string {
    return tenant === null ? this.key(this.approvals, 'approvals-all') : this.key(this.tenant(tenant), 'approvals');
  }

  decidedIndex(tenant: string | null): string {
    return tenant === null ? this.key(this.approvals, 'approvals-decided-all') : this.key(this.tenant(tenant), 'approvals-decided');
  }

  /** id → the record as decided, and `ran:<id>` once its call ran. */
  approvalHistory(tenant: string): string {
    return this.key(this.tenant(tenant), 'approval-history');
  }

  slotOf(approvalKey: string): string {
    return approvalKey.slice(0, approvalKey.indexOf('}') + 1);
  }

  tenantApprovalKeys(approvalKey: string): { pending: string; decided: string; history: string } {
    const tag = this.slotOf(approvalKey);
    return { pending: this.key(tag, 'approvals'), decided: this.key(tag, 'approvals-decided'), history: this.key(tag, 'approval-history') };
  }

  fileLock(tenant: string, path: string): string {
    return this.key(this.tenant(tenant), 'file-lock', path);
  }

  lock(tenant: string, sessionId: string, path: string, user?: string): string {
    return this.key(this.tenant(tenant), 'lock', sessionId, path, user);
  }

  breaker(scope: string): string {
    const tenant = scopeTenant(scope);
    return this.key(tenant === null ? this.breakers : this.tenant(tenant), 'breaker', scope);
  }

  rate(tenant: string, subject: string, tool: string): string {
    return this.key(this.tenant(tenant), 'rate', subject, tool);
  }

  hit(subject: string, windowStart: number): string {
    return this.key(this.tag('hit', subject), 'hit', String(windowStart));
  }

  /** The tenant's grants: one hash, a field per (user, provider) (grantField). */
  grants(tenant: string): string {
    return this.key(this.tenant(tenant), 'grants');
  }

  grantField(user: string, provider: string): string {
    return [user, provider].map(encodeURIComponent).join(':');
  }

  grantRefresh(tenant: string, user: string, provider: string): string {
    return this.key(this.tenant(tenant), 'grant-refresh', user, provider);
  }

  /** A one-use record of the authorization flow: its id comes alone from a URL, so it has a slot of its own kind. */
  once(kind: string, id: string): string {
    return this.key(this.tag('oauth'), kind, id);
  }

  /** BullMQ's prefix: a hash tag of its own keeps each queue's keys in one slot, apart from ours. */
  queuePrefix(): string {
    return `{${this.prefix}}:queue`;
  }
}

/** The part of a key Redis Cluster hashes: inside the first non-empty `{…}`, else the whole key. */
export function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  return close <= open + 1 ? key : key.slice(open + 1, close);
}
