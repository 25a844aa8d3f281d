import type { UpstreamAuth } from '../config/credentials-schema.js';
import { GatewayError } from '../protocol/errors.js';
import type { NoGrantReason } from './grants.js';

/** AUTHORIZATION_REQUIRED with the person's link: the message is a sentence a model can pass on to them as it is. */
export function authorizationRequired(
  provider: string,
  link: { url: string; expiresAt: number; ttlMs: number },
  why: NoGrantReason,
): GatewayError {
  const minutes = Math.max(1, Math.round(link.ttlMs / 60_000));
  const reason = {
    none: `has not been authorized by you at ${provider} yet`,
    expired: `can no longer use your authorization at ${provider} (it expired or was revoked)`,
    scopes: `needs more access at ${provider} than you have authorized`,
    unreadable: `can no longer read your authorization at ${provider} (the gateway's vault key changed)`,
  }[why];
  return new GatewayError('AUTHORIZATION_REQUIRED', {
    message: `This tool acts as you and ${reason}. Please open ${link.url} to authorize it (the link works once, within ${minutes} minutes), then ask me to try again.`,
    suggestion: 'Show the person details.authorization_url; once they have opened it and allowed access, send the same call again.',
    details: { provider, authorization_url: link.url, expires_at: new Date(link.expiresAt).toISOString(), reason: why },
  });
}

/** A call with no person behind it cannot use a person's grant. */
export function userRequired(auth: UpstreamAuth): GatewayError {
  return new GatewayError('AUTHORIZATION_REQUIRED', {
    message: `This tool acts as a person at ${auth.provider}, and this call names no person: call it with a user's OAuth access token, or as a key with the on_behalf scope naming the user in x-toolgate-user.`,
    details: { provider: auth.provider, user_required: true },
  });
}

/** A token-exchange provider needs the person's own access token: a key's call (on_behalf included) has none. */
export function signedInUserRequired(auth: UpstreamAuth): GatewayError {
  return new GatewayError('AUTHORIZATION_REQUIRED', {
    message: `This tool acts as you at ${auth.provider} by exchanging your own sign-in, and this call was not made with a signed-in person's access token: call it with the person's OAuth access token, not an API key.`,
    details: { provider: auth.provider, user_required: true, reason: 'token_exchange' },
  });
}

/** The issuer refused to exchange the person's token (RFC 8693): not retryable as it is. */
export function exchangeRefused(provider: string, oauthError: string | undefined): GatewayError {
  const said = oauthError !== undefined && /^[a-z_]{1,64}$/.test(oauthError) ? ` (${oauthError})` : '';
  return new GatewayError('AUTHORIZATION_REQUIRED', {
    message: `${provider} refused to exchange your sign-in for access to this tool${said}. Sign in again, or ask an administrator whether you may use it.`,
    details: { provider, reason: 'exchange_refused', ...(said && { oauth_error: oauthError }) },
  });
}

/** The provider could not be asked (down, or answered nonsense): the grant is kept, a retry may help. */
export function providerUnavailable(provider: string): GatewayError {
  return new GatewayError('UPSTREAM_ERROR', {
    message: `The OAuth provider ${provider} could not refresh the access token; try again shortly.`,
    details: { provider, reason: 'provider_unavailable' },
  });
}

/** The state store holding the grants cannot be reached: nothing is known of the grant, a retry shortly may help. */
export function grantsUnavailable(provider: string): GatewayError {
  return new GatewayError('STATE_UNAVAILABLE', {
    message: `The person's authorization at ${provider} cannot be read while the state store is unreachable; try again shortly.`,
    retryAfterMs: 1_000,
    suggestion: 'Retry shortly.',
    details: { provider },
  });
}

/** The tenant has made as many authorization links as it may within a link's life. */
export function tooManyLinks(provider: string): GatewayError {
  return new GatewayError('RATE_LIMITED', {
    message: `Too many authorization links are pending for this tenant, so no new one for ${provider} is made now; try again once some have been used or expired.`,
    retryAfterMs: 60_000,
    details: { provider, reason: 'too_many_links' },
  });
}
