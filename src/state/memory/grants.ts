import type { Clock } from '../../shared/clock.js';
import type { GrantEntry, GrantStore, OnceKind, StoredGrant } from '../grants.js';
import { ExpiringMap } from './expiring-map.js';

const grantKey = (tenant: string, user: string, provider: string) => JSON.stringify([tenant, user, provider]);

/** Grants, refresh leases and one-use flow records of one replica. */
export class MemoryGrants implements GrantStore {
  private readonly grants = new Map<string, { tenant: string; user: string; provider: string; grant: StoredGrant }>();
  private readonly leases = new ExpiringMap<{ holder: string; expiresAt: number }>();
  private readonly once = new ExpiringMap<{ value: string; expiresAt: number }>();
  private readonly linkFor = new ExpiringMap<{ id: string; expiresAt: number }>();
  /** Per tenant, when each link it made lapses. */
  private readonly linksMade = new Map<string, number[]>();

  constructor(private readonly clock: Clock) {}

  async getGrant(tenant: string, user: string, provider: string): Promise<StoredGrant | null> {
    return structuredClone(this.grants.get(grantKey(tenant, user, provider))?.grant ?? null);
  }

  async putGrant(
    tenant: string,
    user: string,
    provider: string,
    grant: Omit<StoredGrant, 'version'>,
    expectedVersion?: number,
  ): Promise<number | null> {
    const key = grantKey(tenant, user, provider);
    const current = this.grants.get(key)?.grant;
    if (expectedVersion !== undefined && current?.version !== expectedVersion) return null;
    const version = (current?.version ?? 0) + 1;
    this.grants.set(key, { tenant, user, provider, grant: { ...structuredClone(grant), version } });
    return version;
  }

  async deleteGrant(tenant: string, user: string, provider: string): Promise<StoredGrant | null> {
    const key = grantKey(tenant, user, provider);
    const current = this.grants.get(key)?.grant ?? null;
    this.grants.delete(key);
    return current;
  }

  async listGrants(tenant: string, user?: string): Promise<GrantEntry[]> {
    return [...this.grants.values()]
      .filter((entry) => entry.tenant === tenant && (user === undefined || entry.user === user))
      .map(({ user: who, provider, grant }) => ({ user: who, provider, grant: structuredClone(grant) }));
  }

  async leaseRefresh(tenant: string, user: string, provider: string, holder: string, leaseMs: number): Promise<boolean> {
    const key = grantKey(tenant, user, provider);
    const now = this.clock.now();
    const lease = this.leases.get(key, now);
    if (lease && lease.holder !== holder) return false;
    this.leases.set(key, { holder, expiresAt: now + leaseMs });
    return true;
  }

  async endRefresh(tenant: string, user: string, provider: string, holder: string): Promise<void> {
    const key = grantKey(tenant, user, provider);
    if (this.leases.get(key, this.clock.now())?.holder === holder) this.leases.delete(key);
  }

  async pendingLink(target: string, now: number): Promise<{ id: string; expiresAt: number } | null> {
    const pointer = this.linkFor.get(target, now);
    return pointer && this.once.get(`link:${pointer.id}`, now) ? { ...pointer } : null;
  }

  async putLink(tenant: string, target: string, id: string, value: string, ttlMs: number, max: number, now: number): Promise<boolean> {
    const made = (this.linksMade.get(tenant) ?? []).filter((lapses) => lapses > now);
    this.linksMade.set(tenant, made);
    if (made.length >= max) return false;
    made.push(now + ttlMs);
    this.once.set(`link:${id}`, { value, expiresAt: now + ttlMs });
    this.linkFor.set(target, { id, expiresAt: now + ttlMs });
    return true;
  }

  async putOnce(kind: OnceKind, id: string, value: string, ttlMs: number, now: number): Promise<void> {
    this.once.set(`${kind}:${id}`, { value, expiresAt: now + ttlMs });
  }

  async takeOnce(kind: OnceKind, id: string, now: number): Promise<string | null> {
    const entry = this.once.get(`${kind}:${id}`, now);
    this.once.delete(`${kind}:${id}`);
    return entry?.value ?? null;
  }

  sweep(now: number): void {
    this.leases.sweep(now);
    this.once.sweep(now);
    this.linkFor.sweep(now);
    for (const [tenant, made] of this.linksMade) {
      const live = made.filter((lapses) => lapses > now);
      if (live.length === 0) this.linksMade.delete(tenant);
      else this.linksMade.set(tenant, live);
    }
  }
}
