import type { FastifyBaseLogger } from 'fastify';
import type { OAuthIssuerConfig } from '../config/oauth-schema.js';
import type { Clock } from '../shared/clock.js';
import { tokenScopeFor, type TokenCaller } from './claims.js';
import { Issuer, unverifiedIssuer, type Verified } from './issuer.js';
import { TokenRejected } from './reasons.js';
import { TokenCache } from './token-cache.js';

type Scope = 'execute' | 'admin';

/** A verified bearer token. */
export interface VerifiedToken {
  caller: TokenCaller;
  /** The token scope that would grant `scope` (its issuer's scopes_map), for a 403's `insufficient_scope`. */
  scopeFor(scope: Scope): string | undefined;
}

/** The resource's OAuth metadata (RFC 9728), `GET /.well-known/oauth-protected-resource`. */
interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: ['header'];
}

/** Access tokens of the configured authorization servers, as callers. */
export interface TokenVerifier {
  /** The token's caller; TokenRejected (401) with a reason, or ISSUER_UNAVAILABLE (503) while its issuer cannot be reached. */
  verify(token: string): Promise<VerifiedToken>;
  readonly metadata: ProtectedResourceMetadata;
  /**
   * Where a 401 says the metadata is: beside the first issuer's audience when that is an http(s) URL (the gateway's
   * public URL, never a request's Host header); otherwise undefined, and the request's origin is used.
   */
  readonly metadataUrl: string | undefined;
  /** Stops retrying the discovery of lazy issuers. */
  close(): void;
}

interface VerifierDeps {
  clock: Clock;
  logger: FastifyBaseLogger;
  env: NodeJS.ProcessEnv;
}

/** A lazy issuer's discovery is retried after 1 s, doubling to at most this. */
const MAX_RETRY_MS = 60_000;
const JWT = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/** RFC 9728 section 3.1: the well-known segment goes between the resource's origin and its path (served: `/` and `/mcp`). */
function metadataUrlOf(audience: string): string | undefined {
  let url: URL;
  try {
    url = new URL(audience);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname === '/mcp' ? '/mcp' : ''}`;
}

function metadataOf(issuers: readonly OAuthIssuerConfig[]): ProtectedResourceMetadata {
  return {
    resource: issuers[0]!.audience,
    authorization_servers: issuers.map((issuer) => issuer.issuer),
    scopes_supported: [...new Set(issuers.flatMap((issuer) => Object.keys(issuer.scopes_map)))],
    bearer_methods_supported: ['header'],
  };
}

/**
 * Discovers every issuer: one that cannot be discovered is a start-up problem naming it, or, with `lazy`, a warning
 * and retries (its tokens answer 503 meanwhile). Without problems, the verifier is ready to serve.
 */
export async function createTokenVerifier(
  configs: readonly OAuthIssuerConfig[],
  deps: VerifierDeps,
): Promise<{ verifier: TokenVerifier; problems: string[] }> {
  const problems: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const issuers = configs.map((config, i) => {
    const env = config.introspection?.client_secret_env;
    const secret = env === undefined ? undefined : deps.env[env];
    if (env !== undefined && !secret) problems.push(`auth.oauth.${i}.introspection.client_secret_env: ${env} is not set`);
    return new Issuer(config, deps.clock, secret);
  });
  const retry = (issuer: Issuer, delayMs: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      issuer.discover().then(
        () => deps.logger.info({ issuer: issuer.config.issuer }, 'OAuth issuer discovered; its tokens are accepted'),
        () => retry(issuer, Math.min(delayMs * 2, MAX_RETRY_MS)),
      );
    }, delayMs);
    timer.unref();
    timers.add(timer);
  };
  await Promise.all(
    issuers.map(async (issuer, i) => {
      try {
        await issuer.discover();
      } catch (err) {
        const line = `auth.oauth.${i}.issuer: ${issuer.config.issuer}: ${(err as Error).message}`;
        if (!issuer.config.lazy) return void problems.push(line);
        deps.logger.warn(
          { issuer: issuer.config.issuer, problem: line },
          'OAuth issuer not discovered (lazy): its tokens answer 503 until it is',
        );
        retry(issuer, 1_000);
      }
    }),
  );
  const byIssuer = new Map(issuers.map((issuer) => [issuer.config.issuer, issuer]));
  const cache = new TokenCache<VerifiedToken>();
  const verified = (issuer: Issuer, result: Verified): VerifiedToken => ({
    caller: result.caller,
    scopeFor: (scope) => tokenScopeFor(issuer.config, scope),
  });

  const check = async (token: string): Promise<{ token: VerifiedToken; until: number }> => {
    if (JWT.test(token)) {
      const iss = unverifiedIssuer(token);
      const issuer = iss === undefined ? undefined : byIssuer.get(iss);
      if (!issuer) throw new TokenRejected('unknown_issuer');
      const result = await issuer.verifyJwt(token);
      return { token: verified(issuer, result), until: result.until };
    }
    const introspecting = issuers.filter((issuer) => issuer.config.introspection);
    if (introspecting.length === 0) throw new TokenRejected('malformed');
    for (const issuer of introspecting) {
      const result = await issuer.introspect(token);
      if (result) return { token: verified(issuer, result), until: result.until };
    }
    throw new TokenRejected('inactive');
  };

  const verifier: TokenVerifier = {
    async verify(token) {
      const digest = TokenCache.digest(token);
      const hit = cache.get(digest, deps.clock.now());
      if (hit) return hit;
      const result = await check(token);
      cache.set(digest, result.token, result.until, deps.clock.now());
      return result.token;
    },
    metadata: metadataOf(configs),
    metadataUrl: configs[0] && metadataUrlOf(configs[0].audience),
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
  return { verifier, problems };
}
