import { createHash, randomBytes } from 'node:crypto';
import { startAuthorizationServer, type AuthorizationServer } from '../../test/helpers/authorization-server.js';
import type { GatewayOptions } from '../targets/gateway.js';

/** The resource identifier the `api-key` and `jwt` gateways know themselves by. */
const AUDIENCE = 'http://toolgate.bench/';

/** What the `api-key` and `jwt` targets are configured with, and what their load sends. */
export interface BenchCallers {
  options: NonNullable<GatewayOptions['callers']>;
  /** The `authorization` header of each target's requests. */
  headers: { 'api-key': Record<string, string>; jwt: Record<string, string> };
  stop(): Promise<void>;
}

/**
 * One API key and one access token for the same gateway configuration: a real authorization server (the tests' own,
 * oidc-provider) on loopback issues the token by client credentials. The gateway reads its metadata and keys at start;
 * a request's token is then checked with no network, as an API key is.
 */
export async function startCallers(): Promise<BenchCallers> {
  const server: AuthorizationServer = await startAuthorizationServer({ defaultResource: AUDIENCE });
  const key = `tg_${randomBytes(24).toString('base64url')}`;
  const token = await server.clientCredentials(AUDIENCE, 'toolgate:execute');
  return {
    options: { keySha256: createHash('sha256').update(key).digest('hex'), issuer: server.issuer, audience: AUDIENCE },
    headers: { 'api-key': { authorization: `Bearer ${key}` }, jwt: { authorization: `Bearer ${token}` } },
    stop: () => server.close(),
  };
}
