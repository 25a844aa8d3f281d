import { TENANT_NAME as TENANT_PATTERN } from '../config/keys-schema.js';
import type { OAuthIssuerConfig } from '../config/oauth-schema.js';
import { allowedByAll } from '../policy/index.js';
import { TokenRejected } from './reasons.js';

type Scope = 'execute' | 'admin';

/** The caller a token stands for: the shape of the pipeline's Caller (src/pipeline/types.ts), built here from claims. */
export interface TokenCaller {
  keyId: string;
  tenant: string;
  user: string;
  scopes: ReadonlySet<Scope>;
  allows(tool: string): boolean;
  tools?: readonly string[];
}

/** A tenant claim must name a tenant as a key's `tenant` does. */
const TENANT_NAME = new RegExp(TENANT_PATTERN);
const MAX_USER_LENGTH = 256;

/** A claim that is a list of strings, or one space-separated string (as `scope` is). */
function words(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.split(' ').filter((word) => word.length > 0);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  return undefined;
}

/** Token scopes are `scope` (RFC 9068), else `scp` (Entra ID, Okta); a `scope` that is not a list grants nothing. */
function tokenScopes(claims: Record<string, unknown>): string[] {
  if (claims.scope !== undefined) return words(claims.scope) ?? [];
  return words(claims.scp) ?? [];
}

/** No control characters (C0, DEL, C1) in a name that reaches log lines, audit records and store keys. */
const CONTROL = /\p{Cc}/u;

function tenantOf(claims: Record<string, unknown>, issuer: OAuthIssuerConfig): string {
  if (issuer.tenant !== undefined) return issuer.tenant;
  const claim = issuer.tenant_claim!;
  const value = claims[claim];
  if (typeof value !== 'string' || !TENANT_NAME.test(value)) {
    throw new TokenRejected(
      'missing_tenant',
      value === undefined
        ? `The access token has no "${claim}" claim, which names the tenant (auth.oauth tenant_claim).`
        : `The access token's "${claim}" claim is not a tenant name (letters, digits, _ . -, at most 64).`,
    );
  }
  return value;
}

function userOf(claims: Record<string, unknown>, issuer: OAuthIssuerConfig): string {
  const claim = issuer.user_claim;
  const value = claims[claim];
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_USER_LENGTH || CONTROL.test(value)) {
    throw new TokenRejected(
      'missing_user',
      `The access token has no usable "${claim}" claim, which names the user (auth.oauth user_claim).`,
    );
  }
  return value;
}

/** The tools claim: absent, every tool; a list or a space-separated string, those; anything else refuses the token (never every tool). */
function toolsOf(value: unknown, claim: string): string[] | undefined {
  if (value === undefined) return undefined;
  const tools = words(value);
  if (tools === undefined) {
    throw new TokenRejected('malformed', `The access token's "${claim}" claim (auth.oauth tools_claim) is not a list of tool names.`);
  }
  return tools;
}

/** Verified claims as a caller: tenant, user, the scopes `scopes_map` grants, the tools `tools_claim` allows (absent: every tool). */
export function callerOf(claims: Record<string, unknown>, issuer: OAuthIssuerConfig): TokenCaller {
  const tenant = tenantOf(claims, issuer);
  const user = userOf(claims, issuer);
  const scopes = new Set<Scope>();
  for (const scope of tokenScopes(claims)) {
    const mapped = issuer.scopes_map[scope];
    if (mapped) scopes.add(mapped);
  }
  const named = typeof claims.client_id === 'string' ? claims.client_id : typeof claims.azp === 'string' ? claims.azp : undefined;
  const client = named !== undefined && named.length > 0 && named.length <= MAX_USER_LENGTH && !CONTROL.test(named) ? named : 'token';
  const tools = issuer.tools_claim === undefined ? undefined : toolsOf(claims[issuer.tools_claim], issuer.tools_claim);
  return { keyId: `oauth:${client}`, tenant, user, scopes, allows: allowedByAll([tools]), ...(tools && { tools }) };
}

/** The token scope that grants `scope` for this issuer, for a 403's `WWW-Authenticate: … scope="…"`. */
export function tokenScopeFor(issuer: OAuthIssuerConfig, scope: Scope): string | undefined {
  return Object.entries(issuer.scopes_map).find(([, mapped]) => mapped === scope)?.[0];
}
