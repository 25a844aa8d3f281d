import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Clock } from '../shared/clock.js';
import type { GrantStore } from '../state/grants.js';
import type { Keyring } from './keyring.js';
import type { GrantOwner } from './grants.js';
import type { ProviderClient, TokenSet } from './provider-client.js';

/** What a link is bound to. */
interface LinkTarget extends GrantOwner {
  scopes: string[];
}

/** An authorization under way: the link's target, the PKCE verifier, and the hash of the cookie the browser that opened it holds. */
interface Flow extends LinkTarget {
  verifier: string;
  binding: string;
}

/** Why a flow could not finish, in words for the person's browser; never a token or a provider's own text. */
export class FlowRefused extends Error {}

interface LinkDeps {
  store: GrantStore;
  keyring: Keyring;
  clock: Clock;
  publicUrl: string;
  linkTtlMs: number;
}

const random = () => randomBytes(32).toString('base64url');
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/** The cookie that binds a flow to the browser that opened its link: named for the flow, so two flows in one browser stay apart. */
export const bindingCookie = (state: string) => `toolgate_oauth_${sha256(state).slice(0, 16)}`;

export const redirectUri = (publicUrl: string) => `${publicUrl}/oauth/callback`;

/** The most links one tenant may have made within `oauth.link_ttl_seconds` (docs/credentials.md). */
const MAX_TENANT_LINKS = 1_000;

/** The tenant made MAX_TENANT_LINKS links within a link's life: no more until some lapse. */
export class TooManyLinks extends Error {}

/**
 * The single-use link for `target`: the one made for the same tenant, user, provider and scopes while it lives unused,
 * else a new one, kept sealed for the link's life. TooManyLinks past the tenant's bound.
 */
export async function createLink(deps: LinkDeps, target: LinkTarget): Promise<{ url: string; expiresAt: number; ttlMs: number }> {
  const now = deps.clock.now();
  const digest = sha256(JSON.stringify([target.tenant, target.user, target.provider, [...target.scopes].sort()]));
  const url = (id: string) => `${deps.publicUrl}/oauth/authorize/${id}`;
  const pending = await deps.store.pendingLink(digest, now);
  if (pending) return { url: url(pending.id), expiresAt: pending.expiresAt, ttlMs: pending.expiresAt - now };
  const id = random();
  const sealed = deps.keyring.seal(JSON.stringify(target), `link\0${id}`);
  if (!(await deps.store.putLink(target.tenant, digest, id, sealed, deps.linkTtlMs, MAX_TENANT_LINKS, now))) throw new TooManyLinks();
  return { url: url(id), expiresAt: now + deps.linkTtlMs, ttlMs: deps.linkTtlMs };
}

/** A sealed link or flow record; undefined when the vault's keys cannot open it (its key dropped since): it is a link no longer. */
function opened<T>(deps: LinkDeps, sealed: string, context: string): T | undefined {
  try {
    return JSON.parse(deps.keyring.open(sealed, context)) as T;
  } catch {
    return undefined;
  }
}

/**
 * The link `id` taken (it works once) and its authorization begun: where to send the browser, and the cookie value
 * that browser must bring back to the callback. Null when the link is unknown, used or expired.
 */
export async function beginFlow(
  deps: LinkDeps,
  id: string,
  clientOf: (provider: string) => ProviderClient | undefined,
): Promise<{ redirect: string; state: string; cookie: string } | null> {
  const sealed = await deps.store.takeOnce('link', id, deps.clock.now());
  if (sealed === null) return null;
  const target = opened<LinkTarget>(deps, sealed, `link\0${id}`);
  if (!target) return null;
  const client = clientOf(target.provider);
  if (!client) return null;
  const state = random();
  const verifier = random();
  const cookie = random();
  const flow: Flow = { ...target, verifier, binding: sha256(cookie) };
  await deps.store.putOnce('flow', state, deps.keyring.seal(JSON.stringify(flow), `flow\0${state}`), deps.linkTtlMs, deps.clock.now());
  const scopes = client.settings.user_claim === undefined ? target.scopes : [...new Set(['openid', ...target.scopes])];
  const redirect = await client.authorizationUrl({ state, challenge: sha256(verifier), scopes, redirectUri: redirectUri(deps.publicUrl) });
  return { redirect, state, cookie };
}

const OTHER_BROWSER =
  'This authorization was finished in another browser than the one that opened the link; open a new link and finish it there.';

/** The flow `state` names, taken once; refused when unknown or when the browser lacks the cookie its link set. */
export async function takeFlow(deps: LinkDeps, state: string, cookie: string | undefined): Promise<Flow> {
  // A browser without the cookie (another one, or a forged redirect) is refused before the flow is taken: it stays for its own.
  if (cookie === undefined) throw new FlowRefused(OTHER_BROWSER);
  const sealed = await deps.store.takeOnce('flow', state, deps.clock.now());
  if (sealed === null) throw new FlowRefused('This authorization is unknown, was already finished, or has expired; ask for a new link.');
  const flow = opened<Flow>(deps, sealed, `flow\0${state}`);
  if (!flow) throw new FlowRefused('This authorization was begun under a vault key the gateway no longer has; ask for a new link.');
  const expected = Buffer.from(flow.binding);
  const given = Buffer.from(sha256(cookie));
  if (!timingSafeEqual(expected, given)) throw new FlowRefused(OTHER_BROWSER);
  return flow;
}

/** With `user_claim`, the ID token of the exchange must be the provider's, for this client, and name the link's user. */
export async function checkPerson(client: ProviderClient, set: TokenSet, flow: Flow, now: number): Promise<void> {
  const claim = client.settings.user_claim;
  if (claim === undefined) return;
  let payload: Record<string, unknown>;
  try {
    payload = decodeJwt(set.id_token ?? '');
  } catch {
    throw new FlowRefused(`${flow.provider} sent no ID token, so the person who signed in cannot be checked.`);
  }
  const issuer = await client.issuer();
  const audience = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  const fresh = typeof payload.exp === 'number' && payload.exp * 1000 > now;
  if ((issuer !== undefined && payload.iss !== issuer) || !audience.includes(client.settings.client_id) || !fresh) {
    throw new FlowRefused(`${flow.provider} sent an ID token that is not for toolgate.`);
  }
  // The ID token came straight from the token endpoint over the provider's own connection (OpenID Connect Core 3.1.3.7).
  if (payload[claim] !== flow.user) {
    throw new FlowRefused(
      `The link was made for another person than the one who signed in at ${flow.provider}; the person it was made for must open it.`,
    );
  }
}
