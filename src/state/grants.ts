/** A user's grant at a provider as the store keeps it: sealed by the vault, with what may be shown of it beside. */
export interface StoredGrant {
  /** The tokens, encrypted and authenticated (vault/keyring.ts): the store never sees them in clear. */
  sealed: string;
  scopes: string[];
  /** When the access token expires (epoch ms); null when the provider did not say. */
  expiresAt: number | null;
  connectedAt: number;
  /** Raised by every write: a refresh writes only over the version it read. */
  version: number;
}

/** One user's grant, as a listing shows it. */
export interface GrantEntry {
  user: string;
  provider: string;
  grant: StoredGrant;
}

/** What one-use records of the authorization flow are: a link handed to an agent, an authorization under way at a provider. */
export type OnceKind = 'link' | 'flow';

/**
 * Users' grants at OAuth providers, per (tenant, user, provider), and the records of the flow that makes them.
 * Shared by every replica, so a grant made on one serves calls on all, and one refresh serves the fleet.
 */
export interface GrantStore {
  getGrant(tenant: string, user: string, provider: string): Promise<StoredGrant | null>;
  /**
   * Writes `grant` as the next version; with `expectedVersion`, only over that version (a refresh never revives a
   * forgotten grant nor overwrites a newer one). The version written, or null when it was not.
   */
  putGrant(
    tenant: string,
    user: string,
    provider: string,
    grant: Omit<StoredGrant, 'version'>,
    expectedVersion?: number,
  ): Promise<number | null>;
  /** Forgets the grant; the one forgotten, or null when there was none. */
  deleteGrant(tenant: string, user: string, provider: string): Promise<StoredGrant | null>;
  /** The tenant's grants, or one user's. */
  listGrants(tenant: string, user?: string): Promise<GrantEntry[]>;
  /** The fleet-wide right to refresh one grant for `leaseMs`: true when `holder` now has it. */
  leaseRefresh(tenant: string, user: string, provider: string, holder: string, leaseMs: number): Promise<boolean>;
  /** Gives the lease back when `holder` still has it. */
  endRefresh(tenant: string, user: string, provider: string, holder: string): Promise<void>;
  /**
   * The link made for `target` (a digest of whom and what it is for) while it lives unused: its id and expiry; else null.
   */
  pendingLink(target: string, now: number): Promise<{ id: string; expiresAt: number } | null>;
  /**
   * Keeps the link `value` under `id` for `ttlMs`, for one `takeOnce('link', id)`, and points `target` at it; false (and
   * nothing kept) when `tenant` already made `max` links within the last `ttlMs`.
   */
  putLink(tenant: string, target: string, id: string, value: string, ttlMs: number, max: number, now: number): Promise<boolean>;
  /** Keeps `value` under (`kind`, `id`) for `ttlMs`, for one `takeOnce`. */
  putOnce(kind: OnceKind, id: string, value: string, ttlMs: number, now: number): Promise<void>;
  /** The value, removed in the same step, so a second take finds nothing; null when unknown or expired. */
  takeOnce(kind: OnceKind, id: string, now: number): Promise<string | null>;
}
