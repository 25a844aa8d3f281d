import type { CallRef } from '../state-store.js';

/**
 * Every Redis key toolgate writes, built here and nowhere else:
 * `{<prefix>}:<kind>:<tenant>:<id…>` (kinds without a tenant skip it).
 *
 * Hash tag: the whole prefix is the tag, so every key of one deployment lives
 * in ONE cluster slot. That is what makes the batch scripts Cluster safe: one
 * `admit` decides calls of a tenant against breakers shared by all tenants,
 * atomically, so its keys cannot be spread over slots. The cost is that a
 * Cluster gives this state availability, not sharding; the state is small
 * (leases, counters, short records, all with a TTL), and deployments that
 * outgrow one node can run separate prefixes.
 *
 * Parts are URI-encoded, so `:` inside a tenant, session or path cannot make
 * two keys collide, and `{`/`}` cannot move the hash tag.
 */
export class RedisKeys {
  private readonly base: string;

  constructor(prefix: string) {
    if (/[{}]/.test(prefix)) throw new Error(`Redis key prefix must not contain braces: ${prefix}`);
    this.base = `{${prefix}}`;
  }

  private key(kind: string, ...parts: string[]): string {
    return [this.base, kind, ...parts.map(encodeURIComponent)].join(':');
  }

  /** Replay record of one call: lease while running, result once done. */
  call(ref: CallRef): string {
    return this.key('call', ref.tenant, ref.sessionId, ref.callId);
  }

  /** Whole-request Idempotency-Key record. */
  request(tenant: string, idempotencyKey: string): string {
    return this.key('request', tenant, idempotencyKey);
  }

  /** The approval request for one set of arguments of one tool in one session. */
  approval(tenant: string, sessionId: string, tool: string, argsHash: string): string {
    return this.key('approval', tenant, sessionId, tool, argsHash);
  }

  /** Approval id → the approval key, so an admin can decide by id. */
  approvalId(id: string): string {
    return this.key('approval-id', id);
  }

  /** Sorted set of approval keys by expiry, per tenant, or of all tenants for null. */
  approvalIndex(tenant: string | null): string {
    return tenant === null ? this.key('approvals-all') : this.key('approvals', tenant);
  }

  lock(tenant: string, sessionId: string, path: string): string {
    return this.key('lock', tenant, sessionId, path);
  }

  /** Breakers are per scope across tenants: one probe across all replicas and callers. */
  breaker(scope: string): string {
    return this.key('breaker', scope);
  }

  /** Token bucket of a subject (an API key, which carries its tenant) for one tool. */
  rate(subject: string, tool: string): string {
    return this.key('rate', subject, tool);
  }

  /** Fixed-window counter; the window start is part of the key, so a window is one key. */
  hit(subject: string, windowStart: number): string {
    return this.key('hit', subject, String(windowStart));
  }

  /**
   * The prefix BullMQ puts before its own keys (`<this>:<queue>:<kind>…`):
   * under the same hash tag, so a Cluster keeps each queue's keys (which its
   * scripts touch together) in one slot, and apart from every kind above.
   */
  queuePrefix(): string {
    return `${this.base}:queue`;
  }
}
