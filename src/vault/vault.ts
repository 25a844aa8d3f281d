import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import type { UpstreamAuth } from '../config/credentials-schema.js';
import type { Clock } from '../shared/clock.js';
import type { GrantStore, StoredGrant } from '../state/grants.js';
import { StateUnavailableError } from '../state/state-store.js';
import type { ToolCaller, UpstreamToken } from '../tools/credentials.js';
import { accessToken, expiryOf, NoGrant, openGrant, RefreshFailed, sealGrant, type GrantOwner } from './grants.js';
import { beginFlow, bindingCookie, checkPerson, createLink, FlowRefused, redirectUri, takeFlow, TooManyLinks } from './links.js';
import { createExchanges } from './exchange.js';
import {
  authorizationRequired,
  grantsUnavailable,
  providerUnavailable,
  signedInUserRequired,
  tooManyLinks,
  userRequired,
} from './messages.js';
import { createProviderClient, type ProviderClient } from './provider-client.js';
import type { VaultSettings } from './settings.js';

/** One provider as a person sees their connection to it: never a token. */
interface Connection {
  provider: string;
  connected: boolean;
  scopes: string[];
  /** ISO times; expires_at is the access token's (it is refreshed before it). */
  connected_at?: string;
  expires_at?: string | null;
}

/** The per-user grants of every provider (docs/credentials.md): tokens for calls, the authorization flow, connections. */
export interface Vault {
  /** The caller's access token for `auth`, placed as its provider says; AUTHORIZATION_REQUIRED (with a new link) when there is none to use. */
  token(caller: ToolCaller, auth: UpstreamAuth): Promise<UpstreamToken>;
  /** GET /oauth/authorize/{id}: where to send the browser and the cookie to set; null for a link unknown, used or expired. */
  begin(id: string): Promise<{ redirect: string; cookie: { name: string; value: string } } | null>;
  /** GET /oauth/callback: the grant stored; FlowRefused (a sentence for the person) when it cannot be. */
  finish(query: { state?: string; code?: string; error?: string }, cookie: (name: string) => string | undefined): Promise<GrantOwner>;
  connections(tenant: string, user: string): Promise<Connection[]>;
  /** Revoked at the provider where it can be (RFC 7009), then forgotten; null for a provider not configured. */
  disconnect(tenant: string, user: string, provider: string): Promise<{ forgotten: boolean; revoked: boolean } | null>;
  /** Every grant of the tenant, without tokens. */
  tenantConnections(tenant: string): Promise<Array<Connection & { user: string }>>;
  /** How long a flow's cookie lives, and whether it is Secure (a public URL over https). */
  readonly cookie: { maxAgeS: number; secure: boolean };
}

interface VaultDeps {
  settings: VaultSettings;
  store: GrantStore;
  clock: Clock;
  logger: Logger;
  /** The provider's endpoints are reached through these: `open` for a provider with `allow_private_network`. */
  dispatchers: { guarded: Dispatcher; open: Dispatcher };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const shown = (provider: string, grant: StoredGrant): Connection => ({
  provider,
  connected: true,
  scopes: grant.scopes,
  connected_at: new Date(grant.connectedAt).toISOString(),
  expires_at: iso(grant.expiresAt),
});

export function createVault(deps: VaultDeps): Vault {
  const { settings, store, clock, logger } = deps;
  const clients = new Map<string, ProviderClient>(
    settings.providers.map((p) => [
      p.name,
      createProviderClient(p, p.allow_private_network ? deps.dispatchers.open : deps.dispatchers.guarded),
    ]),
  );
  const linkDeps = { store, keyring: settings.keyring, clock, publicUrl: settings.publicUrl, linkTtlMs: settings.linkTtlMs };
  const grantDeps = { store, keyring: settings.keyring, clock, refreshBeforeMs: settings.refreshBeforeMs };
  const scopesOf = (client: ProviderClient, auth: UpstreamAuth) => [...new Set([...client.settings.scopes, ...auth.scopes])];
  const exchanges = createExchanges(clock, settings.refreshBeforeMs);
  const placed = (client: ProviderClient, token: string): UpstreamToken => {
    const { token_header, token_prefix } = client.settings;
    return { token, header: token_header.toLowerCase(), value: `${token_prefix}${token}` };
  };

  return {
    async token(caller, auth) {
      const client = clients.get(auth.provider)!;
      const scopes = scopesOf(client, auth);
      if (client.settings.token_exchange) {
        if (caller.user === undefined || !caller.subjectToken) throw signedInUserRequired(auth);
        return placed(
          client,
          await exchanges.token(client, { tenant: caller.tenant, user: caller.user }, caller.subjectToken.reveal(), scopes),
        );
      }
      if (caller.user === undefined) throw userRequired(auth);
      const owner = { tenant: caller.tenant, user: caller.user, provider: auth.provider };
      try {
        return placed(client, await accessToken(grantDeps, client, owner, scopes));
      } catch (err) {
        if (err instanceof StateUnavailableError) throw grantsUnavailable(auth.provider);
        if (err instanceof RefreshFailed) {
          logger.warn({ provider: auth.provider, err: err.message }, 'an access token could not be refreshed; the grant is kept');
          throw providerUnavailable(auth.provider);
        }
        if (!(err instanceof NoGrant)) throw err;
        // A link asks for what the person already granted too, so one grant serves every tool of the provider.
        let link;
        try {
          const held = err.why === 'scopes' ? ((await store.getGrant(owner.tenant, owner.user, owner.provider))?.scopes ?? []) : [];
          link = await createLink(linkDeps, { ...owner, scopes: [...new Set([...held, ...scopes])] });
        } catch (linkErr) {
          if (linkErr instanceof TooManyLinks) throw tooManyLinks(auth.provider);
          throw linkErr instanceof StateUnavailableError ? grantsUnavailable(auth.provider) : linkErr;
        }
        throw authorizationRequired(auth.provider, link, err.why);
      }
    },

    async begin(id) {
      const begun = await beginFlow(linkDeps, id, (name) => clients.get(name));
      return begun && { redirect: begun.redirect, cookie: { name: bindingCookie(begun.state), value: begun.cookie } };
    },

    async finish(query, cookie) {
      if (!query.state)
        throw new FlowRefused('The provider sent the browser back without the state of an authorization; ask for a new link.');
      const flow = await takeFlow(linkDeps, query.state, cookie(bindingCookie(query.state)));
      const client = clients.get(flow.provider);
      if (!client) throw new FlowRefused('This provider is no longer configured.');
      if (query.error !== undefined || !query.code) {
        const said = query.error !== undefined && /^[a-z_]{1,64}$/.test(query.error) ? ` (${query.error})` : '';
        throw new FlowRefused(`${flow.provider} did not grant access${said}; ask for a new link to try again.`);
      }
      let set;
      try {
        set = await client.exchangeCode(query.code, flow.verifier, redirectUri(settings.publicUrl));
      } catch (err) {
        logger.warn({ provider: flow.provider, err: (err as Error).message }, 'an authorization code was refused');
        throw new FlowRefused(`${flow.provider} refused to complete the authorization; ask for a new link to try again.`);
      }
      const now = clock.now();
      await checkPerson(client, set, flow, now);
      const owner = { tenant: flow.tenant, user: flow.user, provider: flow.provider };
      const tokens = { access_token: set.access_token, ...(set.refresh_token && { refresh_token: set.refresh_token }) };
      await store.putGrant(owner.tenant, owner.user, owner.provider, {
        sealed: sealGrant(settings.keyring, owner, tokens),
        scopes: flow.scopes,
        expiresAt: expiryOf(set, now),
        connectedAt: now,
      });
      return owner;
    },

    async connections(tenant, user) {
      const held = new Map((await store.listGrants(tenant, user)).map((entry) => [entry.provider, entry.grant]));
      return [...clients.keys()].map((provider) => {
        const grant = held.get(provider);
        return grant ? shown(provider, grant) : { provider, connected: false, scopes: [] };
      });
    },

    async disconnect(tenant, user, provider) {
      const client = clients.get(provider);
      if (!client) return null;
      const grant = await store.getGrant(tenant, user, provider);
      if (!grant) return { forgotten: false, revoked: false };
      let revoked = false;
      try {
        const tokens = openGrant(settings.keyring, { tenant, user, provider }, grant);
        // Revoking the refresh token ends the whole grant at providers that follow RFC 7009 section 2.1.
        revoked = tokens.refresh_token
          ? await client.revoke(tokens.refresh_token, 'refresh_token')
          : await client.revoke(tokens.access_token, 'access_token');
      } catch (err) {
        logger.warn({ provider, err: (err as Error).message }, 'a grant could not be revoked at its provider; it is forgotten anyway');
      }
      await store.deleteGrant(tenant, user, provider);
      return { forgotten: true, revoked };
    },

    async tenantConnections(tenant) {
      return (await store.listGrants(tenant)).map((entry) => ({ user: entry.user, ...shown(entry.provider, entry.grant) }));
    },

    cookie: { maxAgeS: Math.ceil(settings.linkTtlMs / 1000), secure: settings.publicUrl.startsWith('https:') },
  };
}
