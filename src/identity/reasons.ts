import { errors } from 'jose';
import { GatewayError } from '../protocol/errors.js';

/** Why a bearer token was refused: the closed set a 401's `details.reason` and `error_description` speak of. */
type TokenReason =
  | 'expired'
  | 'not_yet_valid'
  | 'wrong_audience'
  | 'unknown_issuer'
  | 'bad_signature'
  | 'unsupported_algorithm'
  | 'malformed'
  | 'unknown_key'
  | 'inactive'
  | 'missing_tenant'
  | 'missing_user';

/** The messages a developer acts on; none repeats the token or a value read from it. */
const MESSAGES: Record<Exclude<TokenReason, 'missing_tenant' | 'missing_user' | 'wrong_audience'>, string> = {
  expired: 'The access token has expired; get a new one from the authorization server.',
  not_yet_valid: 'The access token is not valid yet (nbf); check the clocks of the authorization server and of this gateway.',
  unknown_issuer: "The access token's issuer (iss) is not one this gateway trusts (auth.oauth).",
  bad_signature: "The access token's signature does not verify with its issuer's keys.",
  unsupported_algorithm:
    'The access token is signed with an algorithm this gateway does not accept (never none or HS*; see auth.oauth algorithms).',
  malformed: 'The bearer is neither an API key nor a well-formed access token.',
  unknown_key: 'The access token is signed with a key (kid) its issuer does not publish.',
  inactive: 'The authorization server says the access token is not active (RFC 7662).',
};

/** A 401 for a bearer token, with its reason. */
export class TokenRejected extends GatewayError {
  readonly reason: TokenReason;

  constructor(reason: TokenReason, message?: string) {
    super('UNAUTHORIZED', { message: message ?? (MESSAGES as Record<string, string>)[reason], details: { reason } });
    this.reason = reason;
  }
}

export function wrongAudience(audience: string): TokenRejected {
  return new TokenRejected(
    'wrong_audience',
    `The access token is for another resource (aud); request one for ${audience} (RFC 8707 resource).`,
  );
}

/** A 503 while the issuer's metadata or keys cannot be fetched and none are cached. */
export function issuerUnavailable(issuer: string): GatewayError {
  return new GatewayError('ISSUER_UNAVAILABLE', {
    message: `The authorization server ${issuer} cannot be reached and its keys are not cached yet; retry shortly.`,
    // The soonest the key set (or a lazy issuer's discovery) is tried again.
    retryAfterMs: 1_000,
  });
}

/** jose's verification errors as reasons; anything else (a fetch that failed) is not the token's fault. */
export function reasonOf(err: unknown): TokenReason | undefined {
  if (err instanceof errors.JWTExpired) return 'expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return 'not_yet_valid';
    if (err.claim === 'aud') return 'wrong_audience';
    if (err.claim === 'iss') return 'unknown_issuer';
    return 'malformed';
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'unsupported_algorithm';
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) return 'unknown_key';
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid || err instanceof errors.JOSENotSupported) return 'malformed';
  return undefined;
}
