import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isLoopback } from '../config/checks.js';
import type { KeyConfig } from '../config/keys-schema.js';
import type { Config } from '../config/schema.js';
import { TokenRejected, type TokenVerifier, type VerifiedToken } from '../identity/index.js';
import { allowedByAll, toolsetPatterns, type ToolsetsConfig } from '../policy/index.js';
import { GatewayError } from '../protocol/errors.js';
import { errorResponses } from '../protocol/schemas.js';
import type { Caller } from '../pipeline/types.js';
import type { Clock } from '../shared/clock.js';
import { rateLimitOf } from '../shared/settings.js';
import { SubjectToken } from '../shared/subject-token.js';
import { StateUnavailableError, type StateStore } from '../state/state-store.js';
import { actOnBehalf } from './on-behalf.js';

type Scope = 'execute' | 'admin';

declare module 'fastify' {
  /** The app's logger is pino's (observability/logger.ts): a request's own child takes more bindings in place, with no new child. */
  interface FastifyBaseLogger {
    setBindings(bindings: Record<string, unknown>): void;
  }
  interface FastifyContextConfig {
    /** The scope a route needs; routes without one are public. */
    scope?: Scope;
  }
  interface FastifyRequest {
    caller: Caller;
  }
}

/** With no keys configured, the gateway binds loopback only and serves one local caller with every scope. */
export const LOCAL_CALLER: Caller = Object.freeze({
  keyId: 'local',
  tenant: 'local',
  scopes: new Set<Scope>(['execute', 'admin']),
  allows: () => true,
});

interface CompiledKey {
  hash: Buffer;
  caller: Caller;
}

function compileKey(key: KeyConfig, toolsets: ToolsetsConfig): CompiledKey {
  const only = key.toolsets ? [toolsetPatterns(toolsets, key.toolsets)] : [];
  const caller: Caller = {
    keyId: key.id,
    tenant: key.tenant,
    scopes: new Set(key.scopes),
    // A key with both tools and toolsets may use the tools both allow.
    allows: allowedByAll([key.tools, ...only]),
  };
  if (key.tools) caller.tools = key.tools;
  if (key.toolsets) {
    caller.toolsets = key.toolsets;
    caller.only = only;
  }
  if (key.rate_limit) caller.rateLimit = rateLimitOf(key.rate_limit);
  return { hash: Buffer.from(key.sha256, 'hex'), caller };
}

/** Compare against every key, always all of them, so timing says nothing about which (or whether one) matched. */
function findKey(keys: readonly CompiledKey[], presented: string): Caller | undefined {
  const digest = createHash('sha256').update(presented).digest();
  let found: Caller | undefined;
  for (const key of keys) {
    if (timingSafeEqual(key.hash, digest)) found = key.caller;
  }
  return found;
}

// Long enough for a JWT access token with a few claims; API keys are far shorter.
function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer +([\x21-\x7e]{1,8192})$/i.exec(header.trim());
  return match?.[1];
}

/** RFC 6750 section 3: a parameter value holds no double quote or backslash, so a message's quotes become single ones. */
const quoted = (value: string) => `"${value.replace(/"/g, "'").replace(/\\/g, '/')}"`;

/**
 * `WWW-Authenticate` with OAuth on: every challenge names the resource metadata (RFC 9728 section 5.1), beside the
 * configured audience (TokenVerifier.metadataUrl), else at the request's origin.
 */
function challenge(request: FastifyRequest, tokens: TokenVerifier, params: Record<string, string>): string {
  const metadata = tokens.metadataUrl ?? `${request.protocol}://${request.host}/.well-known/oauth-protected-resource`;
  const all = { ...params, resource_metadata: metadata };
  return `Bearer ${Object.entries(all)
    .map(([name, value]) => `${name}=${quoted(value)}`)
    .join(', ')}`;
}

/** Whether a Host header names this machine's loopback interface (`localhost:8080`, `127.0.0.1`, `[::1]:80`). */
function addressedToLoopback(host: string): boolean {
  try {
    return isLoopback(new URL(`http://${host}`).hostname.replace(/^\[(.*)\]$/, '$1'));
  } catch {
    return false;
  }
}

// Cached, not parsed per request: a gateway sees few distinct Host values.
const HOST_VERDICTS_MAX = 256;
const hostVerdicts = new Map<string, boolean>();

function hostIsLoopback(host: string | undefined): boolean {
  if (host === undefined) return false;
  let verdict = hostVerdicts.get(host);
  if (verdict === undefined) {
    verdict = addressedToLoopback(host);
    if (hostVerdicts.size >= HOST_VERDICTS_MAX) hostVerdicts.clear();
    hostVerdicts.set(host, verdict);
  }
  return verdict;
}

/**
 * Resolve the caller of every request that names a scope. Failed attempts are counted per client address across replicas; past the limit
 * every attempt from that address is refused, right key or not, until the window passes.
 */
export function installAuth(
  app: FastifyInstance,
  config: Pick<Config, 'keys' | 'auth' | 'allow_unauthenticated' | 'toolsets'>,
  state: StateStore,
  clock: Clock,
  tokens?: TokenVerifier,
): void {
  const keys = config.keys.map((key) => compileKey(key, config.toolsets));
  // Loopback alone does not keep a keyless gateway private: a page whose name rebinds to 127.0.0.1 reaches it from the browser.
  const loopbackOnly = keys.length === 0 && !tokens && !config.allow_unauthenticated;
  const limit = config.auth.failures_per_minute;
  app.decorateRequest('caller', null as unknown as Caller);
  // The hook below can refuse any route that names a scope, so each one documents these answers.
  app.addHook('onRoute', (route) => {
    if (!route.config?.scope) return;
    route.schema = { ...route.schema, response: { ...errorResponses(401, 403, 429), ...(route.schema?.response as object | undefined) } };
  });
  /** With keys or tokens: the address's failure count, the key or the token, its scope; the state store is asked, so this one is async. */
  const withKey = async (request: FastifyRequest, reply: FastifyReply, scope: Scope): Promise<void> => {
    const subject = `auth-failures:${request.ip}`;
    const blocked = await failureCount(state, subject, limit, clock, 0);
    if (blocked) throw blocked;
    const presented = bearer(request);
    // Keys first: a constant-time comparison, no network.
    let caller: Caller | undefined = presented === undefined ? undefined : findKey(keys, presented);
    let token: VerifiedToken | undefined;
    if (!caller && presented !== undefined && tokens) {
      try {
        token = await tokens.verify(presented);
        caller = token.caller;
      } catch (err) {
        if (!(err instanceof TokenRejected)) throw err;
        const over = await failureCount(state, subject, limit, clock, 1);
        if (over) throw over;
        reply.header('www-authenticate', challenge(request, tokens, { error: 'invalid_token', error_description: err.message }));
        throw err;
      }
    }
    if (!caller) {
      const over = await failureCount(state, subject, limit, clock, 1);
      if (over) throw over;
      // RFC 9110 11.6.1 requires a 401 to name the scheme it accepts.
      reply.header('www-authenticate', tokens ? challenge(request, tokens, {}) : 'Bearer');
      throw new GatewayError('UNAUTHORIZED', {
        message:
          presented === undefined
            ? `Send ${tokens ? 'an API key or an access token' : 'an API key'} as "Authorization: Bearer <${tokens ? 'key or token' : 'key'}>".`
            : 'The API key is not valid.',
      });
    }
    if (!caller.scopes.has(scope)) {
      if (!token || !tokens) throw new GatewayError('FORBIDDEN', { message: `The API key lacks the "${scope}" scope.` });
      const needed = token.scopeFor(scope);
      reply.header('www-authenticate', challenge(request, tokens, { error: 'insufficient_scope', ...(needed && { scope: needed }) }));
      throw new GatewayError('FORBIDDEN', {
        message: `The access token lacks the scope this route needs${needed ? ` (${needed})` : ''}; request a token with it.`,
      });
    }
    // The presented token rides with the caller for token exchange, shown nowhere (SubjectToken).
    request.caller = token ? { ...caller, subjectToken: new SubjectToken(presented!) } : caller;
    // A token names its user itself: x-toolgate-user is for keys acting for theirs.
    if (caller.user !== undefined) request.log.setBindings({ user: caller.user });
    actOnBehalf(request);
  };
  // `done` rather than async (see installRequestId): public routes and keyless gateways need no promise.
  app.addHook('onRequest', (request, reply, done) => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return done();
    if (keys.length > 0 || tokens) return void withKey(request, reply, scope).then(() => done(), done);
    if (loopbackOnly && !hostIsLoopback(request.headers.host)) {
      throw new GatewayError('FORBIDDEN', {
        message: 'Without API keys the gateway answers requests addressed to localhost, 127.0.0.1 or [::1] only.',
      });
    }
    request.caller = LOCAL_CALLER;
    actOnBehalf(request);
    done();
  });
}

/** Rate-limit error once `subject` has more than `limit` failures in the minute; `cost` 0 only looks. */
async function failureCount(
  state: StateStore,
  subject: string,
  limit: number,
  clock: Clock,
  cost: 0 | 1,
): Promise<GatewayError | undefined> {
  try {
    const { allowed, retryAfterMs } = await state.hit(subject, limit, 60_000, clock.now(), cost);
    if (allowed) return undefined;
    return new GatewayError('RATE_LIMITED', {
      message: 'Too many failed authentication attempts from this address.',
      retryAfterMs,
    });
  } catch (err) {
    // The brute-force guard is a second line; keys are still checked without it.
    if (err instanceof StateUnavailableError) return undefined;
    throw err;
  }
}
