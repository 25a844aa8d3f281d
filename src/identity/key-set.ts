import { createLocalJWKSet, createRemoteJWKSet, errors, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../shared/clock.js';

/** An unknown `kid` refetches the key set at most once per this interval, however many tokens name one. */
export const KEY_REFETCH_INTERVAL_MS = 30_000;
/** Keys are refetched this often (by the gateway's clock) while the issuer answers; while it does not, the last ones fetched keep serving. */
export const KEY_MAX_AGE_MS = 600_000;
/** The last keys fetched serve while the issuer is down for this long after that fetch at most: then the issuer's tokens answer 503 until it answers again. */
export const KEY_STALE_MS = 86_400_000;
const KEY_FETCH_TIMEOUT_MS = 5_000;
/** With no keys yet, a failed fetch is not tried again for this long: a burst of tokens makes one attempt, not one each. */
const RETRY_WITHOUT_KEYS_MS = 1_000;

/** The issuer's key set could not be fetched, and none is cached. */
export class KeysUnavailable extends Error {}

/**
 * The issuer's signing keys, fetched from `jwks_uri` and cached (jose's remote key set). A fetch that fails leaves the
 * cached keys in use, and the issuer is not asked again for one refetch interval.
 */
export function createKeySet(jwksUri: string, clock: Clock): JWTVerifyGetKey {
  const remote = createRemoteJWKSet(new URL(jwksUri), {
    cooldownDuration: KEY_REFETCH_INTERVAL_MS,
    // Age is judged here, by the injected clock.
    cacheMaxAge: Infinity,
    timeoutDuration: KEY_FETCH_TIMEOUT_MS,
  });
  let failedAt = -Infinity;
  let fetchedAt = -Infinity;
  let fallback: { jwks: object; keys: JWTVerifyGetKey } | undefined;
  const cached = (): JWTVerifyGetKey | undefined => {
    const jwks = remote.jwks();
    if (!jwks) return undefined;
    if (fallback?.jwks !== jwks) fallback = { jwks, keys: createLocalJWKSet(jwks) };
    return fallback.keys;
  };
  return async (header, token) => {
    const last = cached();
    const fresh = last && clock.now() - fetchedAt < KEY_STALE_MS ? last : undefined;
    const sinceFailure = clock.now() - failedAt;
    if (fresh && sinceFailure < KEY_REFETCH_INTERVAL_MS) return fresh(header, token);
    if (!fresh && sinceFailure < RETRY_WITHOUT_KEYS_MS) throw new KeysUnavailable(`${jwksUri}: the last fetch failed`);
    try {
      if (!last || clock.now() - fetchedAt >= KEY_MAX_AGE_MS) {
        await remote.reload();
        fetchedAt = clock.now();
      }
      return await remote(header, token);
    } catch (err) {
      if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) throw err;
      failedAt = clock.now();
      if (fresh) return fresh(header, token);
      throw new KeysUnavailable(`${jwksUri}: ${(err as Error).message}`, { cause: err });
    }
  };
}
