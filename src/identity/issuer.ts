import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { OAuthIssuerConfig } from '../config/oauth-schema.js';
import type { Clock } from '../shared/clock.js';
import { callerOf, type TokenCaller } from './claims.js';
import { discover } from './discovery.js';
import { introspect } from './introspection.js';
import { createKeySet, KeysUnavailable } from './key-set.js';
import { issuerUnavailable, reasonOf, TokenRejected, wrongAudience } from './reasons.js';

/** A verified token's caller and how long it may be reused (ms since the epoch). */
export interface Verified {
  caller: TokenCaller;
  until: number;
}

/** `typ` of an access token: RFC 9068's, or the generic one many issuers write; absent is accepted. */
const ACCESS_TOKEN_TYPES = new Set(['at+jwt', 'application/at+jwt', 'jwt', 'application/jwt']);

interface Discovered {
  keys?: JWTVerifyGetKey;
  introspection?: { endpoint: string; client: { id: string; secret: string } };
}

/** One configured authorization server: its discovery, its keys, and the checks of its tokens. */
export class Issuer {
  private discovered?: Discovered;

  constructor(
    readonly config: OAuthIssuerConfig,
    private readonly clock: Clock,
    private readonly secret: string | undefined,
  ) {}

  get ready(): boolean {
    return this.discovered !== undefined;
  }

  /** Reads the metadata; throws with what failed. */
  async discover(): Promise<void> {
    const metadata = await discover(this.config.issuer);
    const found: Discovered = {};
    if (metadata.jwks_uri) found.keys = createKeySet(metadata.jwks_uri, this.clock);
    const introspection = this.config.introspection;
    if (introspection) {
      if (!metadata.introspection_endpoint) throw new Error('introspection is configured but its metadata names no introspection_endpoint');
      found.introspection = {
        endpoint: metadata.introspection_endpoint,
        client: { id: introspection.client_id, secret: this.secret ?? '' },
      };
    } else if (!found.keys) {
      throw new Error('its metadata names no jwks_uri, so its tokens cannot be checked');
    }
    this.discovered = found;
  }

  private whenReady(): Discovered {
    if (!this.discovered) throw issuerUnavailable(this.config.issuer);
    return this.discovered;
  }

  /** A JWT access token (RFC 9068) whose `iss` names this issuer. */
  async verifyJwt(token: string): Promise<Verified> {
    const header = protectedHeader(token);
    const typ: unknown = header.typ;
    if (typ !== undefined && (typeof typ !== 'string' || !ACCESS_TOKEN_TYPES.has(typ.toLowerCase()))) {
      throw new TokenRejected('malformed', 'The bearer is a JWT whose type (typ) is not an access token (at+jwt or JWT).');
    }
    if (typeof header.alg !== 'string' || !this.config.algorithms.includes(header.alg)) throw new TokenRejected('unsupported_algorithm');
    const { keys } = this.whenReady();
    if (!keys)
      throw new TokenRejected(
        'malformed',
        'This issuer publishes no keys; its tokens are checked by introspection, and this one is a JWT.',
      );
    const now = this.clock.now();
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: this.config.algorithms,
        clockTolerance: this.config.clock_tolerance_s,
        currentDate: new Date(now),
        requiredClaims: ['exp'],
      });
      return { caller: callerOf(payload, this.config), until: payload.exp! * 1000 };
    } catch (err) {
      if (err instanceof TokenRejected) throw err;
      if (err instanceof KeysUnavailable) throw issuerUnavailable(this.config.issuer);
      const reason = reasonOf(err);
      if (reason === 'wrong_audience') throw wrongAudience(this.config.audience);
      if (reason) throw new TokenRejected(reason);
      throw err;
    }
  }

  /** An opaque token, by introspection; undefined when this issuer does not know it (inactive) or does not introspect. */
  async introspect(token: string): Promise<Verified | undefined> {
    const { introspection } = this.whenReady();
    if (!introspection) return undefined;
    let answer;
    try {
      answer = await introspect(introspection.endpoint, introspection.client, token);
    } catch {
      throw issuerUnavailable(this.config.issuer);
    }
    if (!answer.active) return undefined;
    const now = this.clock.now();
    if (answer.iss !== undefined && answer.iss !== this.config.issuer) throw new TokenRejected('unknown_issuer');
    // Audience-bound tokens only: an answer that names no audience is not for this gateway.
    if (![answer.aud].flat().includes(this.config.audience)) throw wrongAudience(this.config.audience);
    if (typeof answer.exp === 'number' && answer.exp * 1000 <= now) throw new TokenRejected('expired');
    const cacheUntil = now + this.config.introspection!.cache_ms;
    const until = typeof answer.exp === 'number' ? Math.min(answer.exp * 1000, cacheUntil) : cacheUntil;
    // RFC 7662 makes `sub` optional; a client's own token is the client's, as RFC 9068 writes it (sub = client_id).
    const claims = answer.sub === undefined && typeof answer.client_id === 'string' ? { ...answer, sub: answer.client_id } : answer;
    return { caller: callerOf(claims, this.config), until };
  }
}

function protectedHeader(token: string): ReturnType<typeof decodeProtectedHeader> {
  try {
    return decodeProtectedHeader(token);
  } catch {
    throw new TokenRejected('malformed');
  }
}

/** `iss` of a JWT, read before any check to pick its issuer; a bearer that is not a JWT has none. */
export function unverifiedIssuer(token: string): string | undefined {
  try {
    const iss = decodeJwt(token).iss;
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    throw new TokenRejected('malformed');
  }
}
