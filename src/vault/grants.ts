import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../shared/clock.js';
import type { GrantStore, StoredGrant } from '../state/grants.js';
import type { Keyring } from './keyring.js';
import { ProviderError, type ProviderClient, type TokenSet } from './provider-client.js';

/** What a grant holds in clear, sealed in the store. */
interface GrantTokens {
  access_token: string;
  refresh_token?: string;
}

/** Who a grant is for. */
export interface GrantOwner {
  tenant: string;
  user: string;
  provider: string;
}

/**
 * Why a grant could not give a token: none stored, its refresh refused (then it is forgotten), scopes it lacks, or a record the
 * vault's keys cannot open (sealed under a key no longer configured, or not this owner's): the person authorizes again and the new
 * grant replaces it.
 */
export type NoGrantReason = 'none' | 'expired' | 'scopes' | 'unreadable';

export class NoGrant extends Error {
  constructor(readonly why: NoGrantReason) {
    super(`no usable grant (${why})`);
  }
}

/** The provider could not refresh for now; the grant is kept. */
export class RefreshFailed extends Error {}

/**
 * A refresh holds its lease at most this long: a replica that stops mid-refresh frees it for another. It outlasts
 * the longest refresh (a discovery and a token request, each cut at provider-client's REQUEST_MS), so a lease never
 * lapses while its refresh is still on the wire.
 */
const LEASE_MS = 30_000;
const POLL_MS = 50;

const context = (owner: GrantOwner) => `grant\0${owner.tenant}\0${owner.user}\0${owner.provider}`;

/** Sealing and opening one owner's grant, its expiry read from a token answer. */
export function sealGrant(keyring: Keyring, owner: GrantOwner, tokens: GrantTokens): string {
  return keyring.seal(JSON.stringify(tokens), context(owner));
}

export function openGrant(keyring: Keyring, owner: GrantOwner, grant: StoredGrant): GrantTokens {
  return JSON.parse(keyring.open(grant.sealed, context(owner))) as GrantTokens;
}

/** The grant's tokens for `accessToken`: a record the keys cannot open is no grant (NoGrant 'unreadable'), never a failed call. */
function tokensOf(keyring: Keyring, owner: GrantOwner, grant: StoredGrant): GrantTokens {
  try {
    return openGrant(keyring, owner, grant);
  } catch {
    throw new NoGrant('unreadable');
  }
}

export const expiryOf = (set: TokenSet, now: number): number | null => (set.expires_in === undefined ? null : now + set.expires_in * 1000);

interface GrantAccessDeps {
  store: GrantStore;
  keyring: Keyring;
  clock: Clock;
  refreshBeforeMs: number;
}

/**
 * The owner's access token covering `scopes`: the stored one while it is fresh, else refreshed once for the
 * whole fleet: the replica that takes the lease refreshes, the others wait for the version it writes and use it.
 * A rotated refresh token is written with the access token in one step; `invalid_grant` forgets the grant.
 */
export async function accessToken(deps: GrantAccessDeps, client: ProviderClient, owner: GrantOwner, scopes: string[]): Promise<string> {
  const { store, keyring, clock } = deps;
  const { tenant, user, provider } = owner;
  let awaited: number | undefined;
  for (;;) {
    const grant = await store.getGrant(tenant, user, provider);
    if (!grant) throw new NoGrant(awaited === undefined ? 'none' : 'expired');
    if (!scopes.every((scope) => grant.scopes.includes(scope))) throw new NoGrant('scopes');
    const now = clock.now();
    const tokens = tokensOf(keyring, owner, grant);
    // A token another replica just wrote is used while it has not expired, even inside the refresh margin: never refreshed twice.
    const margin = grant.version === awaited ? 0 : deps.refreshBeforeMs;
    if (grant.expiresAt === null || grant.expiresAt - margin > now) return tokens.access_token;
    if (!tokens.refresh_token) {
      if (grant.expiresAt! > now) return tokens.access_token;
      await store.deleteGrant(tenant, user, provider);
      throw new NoGrant('expired');
    }
    const holder = randomUUID();
    if (await store.leaseRefresh(tenant, user, provider, holder, LEASE_MS)) {
      try {
        // Another replica may have refreshed between the read and the lease: its refresh token rotated this one away,
        // and sending the old one again makes providers with reuse detection revoke the whole grant.
        const current = await store.getGrant(tenant, user, provider);
        if (current?.version !== grant.version) {
          awaited = current?.version ?? -1;
          continue;
        }
        const refreshed = await refresh(deps, client, owner, grant, tokens.refresh_token);
        if (refreshed !== null) return refreshed;
      } catch (err) {
        // A provider down for now does not stop a token that still works.
        if (err instanceof RefreshFailed && grant.expiresAt! > clock.now()) return tokens.access_token;
        throw err;
      } finally {
        await store.endRefresh(tenant, user, provider, holder);
      }
      continue;
    }
    awaited = await awaitNewVersion(store, owner, grant.version);
  }
}

/** One refresh at the provider, written over the version read; null when that version was replaced or forgotten meanwhile. */
async function refresh(
  deps: GrantAccessDeps,
  client: ProviderClient,
  owner: GrantOwner,
  grant: StoredGrant,
  refreshToken: string,
): Promise<string | null> {
  let set: TokenSet;
  try {
    set = await client.refresh(refreshToken);
  } catch (err) {
    if (err instanceof ProviderError && err.oauthError === 'invalid_grant') {
      const current = await deps.store.getGrant(owner.tenant, owner.user, owner.provider);
      if (current?.version === grant.version) await deps.store.deleteGrant(owner.tenant, owner.user, owner.provider);
      throw new NoGrant('expired');
    }
    throw new RefreshFailed((err as Error).message);
  }
  const tokens: GrantTokens = { access_token: set.access_token, refresh_token: set.refresh_token ?? refreshToken };
  const written = await deps.store.putGrant(
    owner.tenant,
    owner.user,
    owner.provider,
    {
      sealed: sealGrant(deps.keyring, owner, tokens),
      scopes: grant.scopes,
      expiresAt: expiryOf(set, deps.clock.now()),
      connectedAt: grant.connectedAt,
    },
    grant.version,
  );
  return written === null ? null : set.access_token;
}

/** Waits while another replica refreshes: the version it wrote, or (its lease lapsed or given back unwritten) the same one. */
async function awaitNewVersion(store: GrantStore, owner: GrantOwner, version: number): Promise<number> {
  const deadline = Date.now() + LEASE_MS;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    const grant = await store.getGrant(owner.tenant, owner.user, owner.provider);
    if (!grant) return -1;
    if (grant.version !== version) return grant.version;
    const probe = randomUUID();
    if (await store.leaseRefresh(owner.tenant, owner.user, owner.provider, probe, POLL_MS)) {
      await store.endRefresh(owner.tenant, owner.user, owner.provider, probe);
      return version;
    }
  }
  return version;
}
