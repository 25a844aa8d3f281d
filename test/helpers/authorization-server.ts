import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTPayload,
  type JWTHeaderParameters,
} from 'jose';
import Provider from 'oidc-provider';

/** The scopes toolgate maps by default (auth.oauth[].scopes_map). */
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

export const TOOLGATE_SCOPES = ['toolgate:execute', 'toolgate:admin'] as const;

export interface AuthorizationServerOptions {
  /** The resource (RFC 8707) a token is for when its request names none; absent: every request names one. */
  defaultResource?: string;
  /** The scopes every resource knows; default TOOLGATE_SCOPES. */
  scopes?: readonly string[];
  /** Claims added to every access token, e.g. a tenant claim `{ org: 'acme' }`. */
  claims?: Record<string, unknown>;
  /** `opaque` issues tokens a resource server must introspect (RFC 7662); default `jwt` (RFC 9068). */
  accessTokenFormat?: 'jwt' | 'opaque';
  /** Lifetime of access tokens; default 3600. */
  accessTokenTtlS?: number;
  /** Also serve RFC 8414 metadata at /.well-known/oauth-authorization-server; default: only OpenID discovery. */
  oauthMetadata?: boolean;
  /** The public client's redirect URIs; default `http://127.0.0.1/callback` (loopback: any port, RFC 8252). */
  redirectUris?: string[];
  /**
   * A confidential web client for authorization_code with PKCE and refresh_token (client_secret_basic), as a gateway acting
   * for its users is: refresh tokens issued to it always, rotated on every use (a used one is refused).
   */
  webClient?: { redirectUris: string[] };
  /**
   * The web client may also use RFC 8693 token exchange: a `subject_token` this server signed (not expired, its `sub` not in `refuse`) is
   * traded for a token of `expiresInS` (default 300) whose `aud` is the `audience` asked for; anything else is `invalid_grant`.
   */
  tokenExchange?: { refuse?: string[]; expiresInS?: number };
}

export interface AuthorizationServer {
  /** http://127.0.0.1:<port>, the `iss` of its tokens. */
  issuer: string;
  /** The key it signs access tokens with, private parts included (RS256, with `kid`): hostile tests forge with it. */
  signingKey: JWK;
  /** A confidential client allowed client_credentials and introspection (client_secret_basic or _post). */
  client: { id: string; secret: string };
  /** A public client for authorization_code with PKCE; its users sign in on the built-in pages with any login and password. */
  publicClient: { id: string; redirectUris: string[] };
  /** With `webClient`: its id and secret. */
  webClient: { id: string; secret: string };
  /** With `tokenExchange`: each exchange granted, the subject and audience. */
  exchanges: Array<{ sub: string; audience: string }>;
  /** Paths of the requests received, in order (query strings cut). */
  requests: string[];
  /** How many requests reached `path`, e.g. hits('/jwks'). */
  hits(path: string): number;
  /** An access token by client_credentials for `resource`, with `scope` (default every scope). */
  clientCredentials(resource: string, scope?: string): Promise<string>;
  /**
   * A token signed with `signingKey` unless `key` is given: defaults iss, sub `alice`, client_id, scope
   * (every scope), iat, exp (+300 s), jti and the configured claims; `claims` override them (undefined removes one),
   * `header` overrides `{alg: RS256, kid, typ: at+jwt}`.
   */
  forge(claims?: Record<string, unknown>, header?: Partial<JWTHeaderParameters>, key?: JWK): Promise<string>;
  /** While down, every connection is dropped unanswered, as if the server were unreachable. */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

/** The part of a path before its query string. */
function pathOf(url: string | undefined): string {
  return (url ?? '/').split('?')[0] ?? '/';
}

/**
 * A real, certified OpenID Provider (oidc-provider) on a free loopback port, in process: resource indicators with JWT
 * access tokens whose `aud` is the resource, client_credentials, authorization_code with PKCE, dynamic client
 * registration, introspection, and its development sign-in and consent pages so a browser can sign a user in.
 */
export async function startAuthorizationServer(options: AuthorizationServerOptions = {}): Promise<AuthorizationServer> {
  const scopes = options.scopes ?? TOOLGATE_SCOPES;
  const claims = options.claims ?? {};
  const ttl = options.accessTokenTtlS ?? 3600;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey: JWK = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
  const client = { id: 'backend', secret: randomBytes(24).toString('base64url') };
  const publicClient = { id: 'agent', redirectUris: options.redirectUris ?? ['http://127.0.0.1/callback'] };
  const webClient = { id: 'toolgate', secret: randomBytes(24).toString('base64url') };
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let down = false;
  // The issuer names the port, so the provider is made once the server listens; the request handler comes after it.
  const server = createServer();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: client.id,
        client_secret: client.secret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope: scopes.join(' '),
      },
      {
        client_id: publicClient.id,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: publicClient.redirectUris,
      },
      ...(options.webClient
        ? [
            {
              client_id: webClient.id,
              client_secret: webClient.secret,
              token_endpoint_auth_method: 'client_secret_basic',
              grant_types: ['authorization_code', 'refresh_token', ...(options.tokenExchange ? [TOKEN_EXCHANGE] : [])],
              response_types: ['code'],
              redirect_uris: options.webClient.redirectUris,
            },
          ]
        : []),
    ],
    ...(options.webClient && {
      issueRefreshToken: (_ctx: unknown, client: { clientId: string }) => client.clientId === webClient.id,
      rotateRefreshToken: () => true,
    }),
    jwks: { keys: [signingKey] },
    scopes: ['openid', 'offline_access', ...scopes],
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    pkce: { required: () => true },
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
      AuthorizationCode: 60,
      Grant: 3600,
      IdToken: 3600,
      Interaction: 600,
      RefreshToken: 86_400,
      Session: 86_400,
    },
    clientBasedCORS: () => true,
    extraTokenClaims: () => claims,
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      registration: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf ?? options.defaultResource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: scopes.join(' '),
          audience: resource,
          accessTokenTTL: ttl,
          accessTokenFormat: options.accessTokenFormat ?? 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  const exchanges: AuthorizationServer['exchanges'] = [];
  if (options.tokenExchange) {
    const { refuse = [], expiresInS = 300 } = options.tokenExchange;
    const { kty, n, e, kid, alg } = signingKey;
    const keys = createLocalJWKSet({ keys: [{ kty, n, e, kid, alg }] });
    const params = ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'scope'];
    // oidc-provider's own types leave out registerGrantType, which its docs describe for extension grants.
    (provider as unknown as { registerGrantType(name: string, handler: unknown, params: string[]): void }).registerGrantType(
      TOKEN_EXCHANGE,
      async (ctx: { oidc: { params: Record<string, string | undefined> }; status: number; body: unknown }) => {
        const { subject_token: subject = '', audience = '' } = ctx.oidc.params;
        const sub = await jwtVerify(subject, keys, { issuer }).then(
          (verified) => verified.payload.sub,
          () => undefined,
        );
        if (!sub || refuse.includes(sub) || audience === '') {
          ctx.status = 400;
          ctx.body = { error: 'invalid_grant', error_description: 'the subject token is not accepted' };
          return;
        }
        exchanges.push({ sub, audience });
        const now = Math.floor(Date.now() / 1000);
        const token = await forge({ sub, aud: audience, client_id: webClient.id, exp: now + expiresInS });
        ctx.body = {
          access_token: token,
          issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          token_type: 'Bearer',
          expires_in: expiresInS,
        };
      },
      params,
    );
  }
  const handle = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (down) {
      req.socket.destroy();
      return;
    }
    const path = pathOf(req.url);
    requests.push(path);
    if (options.oauthMetadata && path === '/.well-known/oauth-authorization-server') req.url = '/.well-known/openid-configuration';
    handle(req, res);
  });

  const forge: AuthorizationServer['forge'] = async (overrides = {}, header = {}, key = signingKey) => {
    const now = Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = {
      iss: issuer,
      sub: 'alice',
      client_id: client.id,
      scope: scopes.join(' '),
      iat: now,
      exp: now + 300,
      jti: randomUUID(),
      ...claims,
      ...overrides,
    };
    for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
    const protectedHeader = { alg: 'RS256', kid: signingKey.kid, typ: 'at+jwt', ...header } as JWTHeaderParameters;
    return new SignJWT(payload as JWTPayload).setProtectedHeader(protectedHeader).sign(await importJWK(key, protectedHeader.alg));
  };

  return {
    issuer,
    signingKey,
    client,
    publicClient,
    webClient,
    exchanges,
    requests,
    hits: (path) => requests.filter((p) => p === path).length,
    async clientCredentials(resource, scope = scopes.join(' ')) {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }).toString(),
      });
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!body.access_token) throw new Error(`client_credentials: ${response.status} ${body.error}: ${body.error_description}`);
      return body.access_token;
    },
    forge,
    setDown(value) {
      down = value;
      if (down) for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
