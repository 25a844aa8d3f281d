import type { Clock } from '../shared/clock.js';
import { ProviderError, type ProviderClient } from './provider-client.js';
import { exchangeRefused, providerUnavailable } from './messages.js';

/** Exchanged tokens kept at most; past it the entry closest to expiry is dropped first. */
const MAX_ENTRIES = 10_000;

/**
 * Tokens got by RFC 8693 exchange (docs/credentials.md, "Token exchange"): in this replica's memory only, per (tenant, person, provider,
 * scopes), until `refreshBeforeMs` before their expiry, then exchanged again with the caller's token of that call. One exchange at a time
 * per entry: calls racing for it wait for the same answer. A token without `expires_in` is used for its call only.
 */
export function createExchanges(clock: Clock, refreshBeforeMs: number) {
  const held = new Map<string, { token: string; until: number }>();
  const pending = new Map<string, Promise<string>>();

  const keep = (key: string, token: string, until: number) => {
    if (held.size >= MAX_ENTRIES) {
      const soonest = [...held].reduce((a, b) => (b[1].until < a[1].until ? b : a));
      held.delete(soonest[0]);
    }
    held.set(key, { token, until });
  };

  return {
    async token(client: ProviderClient, owner: { tenant: string; user: string }, subjectToken: string, scopes: string[]): Promise<string> {
      const key = JSON.stringify([owner.tenant, owner.user, client.settings.name, [...scopes].sort()]);
      const cached = held.get(key);
      if (cached && clock.now() < cached.until) return cached.token;
      held.delete(key);
      let exchanging = pending.get(key);
      if (!exchanging) {
        exchanging = (async () => {
          try {
            const set = await client.exchange(subjectToken, scopes);
            if (set.expires_in !== undefined) keep(key, set.access_token, clock.now() + set.expires_in * 1000 - refreshBeforeMs);
            return set.access_token;
          } catch (err) {
            // An error code is the issuer's refusal; no answer, or one without a code, is the issuer being unavailable.
            if (err instanceof ProviderError && err.oauthError !== undefined) throw exchangeRefused(client.settings.name, err.oauthError);
            throw providerUnavailable(client.settings.name);
          }
        })().finally(() => pending.delete(key));
        pending.set(key, exchanging);
      }
      return exchanging;
    },
  };
}
