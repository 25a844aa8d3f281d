import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/shared/clock.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../helpers/authorization-server.js';
import { ON_BEHALF_KEYS, forUser } from '../../helpers/users.js';
import { corpProvider, vaultKey } from './fleet.js';

const API_AUDIENCE = 'https://api.corp.example';

/** docs/credentials.md, "Token exchange": the caller's own access token traded at the issuer for one meant for the provider's API. */
describe('per-user credentials: token exchange (RFC 8693)', () => {
  let provider: AuthorizationServer;
  let api: Server;
  let gateway: TestApp;
  const clock = new ManualClock(Date.now());
  const seen: Array<{ user: string; token: string }> = [];

  beforeAll(async () => {
    provider = await startAuthorizationServer({
      webClient: { redirectUris: ['http://127.0.0.1/callback'] },
      tokenExchange: { refuse: ['mallory'], expiresInS: 300 },
    });
    // A loopback API that accepts only tokens the provider signed for it (aud), and answers for their subject.
    const keys = createRemoteJWKSet(new URL(`${provider.issuer}/jwks`));
    api = createServer((req, res) => {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      jwtVerify(token, keys, { issuer: provider.issuer, audience: API_AUDIENCE }).then(
        ({ payload }) => {
          seen.push({ user: String(payload.sub), token });
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ user: payload.sub }));
        },
        () => res.writeHead(401).end('{"error":"invalid_token"}'),
      );
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    gateway = await buildTestApp({
      clock,
      builtins: false,
      env: {
        CORP_CLIENT_SECRET: provider.webClient.secret,
        TOOLGATE_PUBLIC_URL: 'http://127.0.0.1:1',
        TOOLGATE_VAULT_KEY: vaultKey(),
        TOOLGATE_VAULT_KEY_ID: 'k1',
      },
      config: {
        keys: ON_BEHALF_KEYS,
        auth: { oauth: [{ issuer: provider.issuer, audience: 'toolgate', tenant: 'acme' }] },
        oauth_providers: [corpProvider(provider, { token_exchange: { audience: API_AUDIENCE } })],
        tools: [
          {
            name: 'whoami',
            description: 'Who the corporate API sees.',
            parameters: { type: 'object' },
            http: { method: 'GET', url: `${apiUrl}/me`, allow_private_network: true, retries: 0 },
            auth: { provider: 'corp' },
          },
        ],
      },
    });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    api?.closeAllConnections();
    await new Promise((resolve) => api?.close(resolve));
    await provider?.close();
  });

  /** A token the issuer signed for the gateway, for `sub`, living an hour of real time. */
  const signIn = (sub: string) => provider.forge({ sub, aud: 'toolgate', exp: Math.floor(Date.now() / 1000) + 3600 });

  async function call(headers: Record<string, string>) {
    const res = await execute(gateway.app, [{ id: randomUUID(), name: 'whoami', arguments: {} }], headers);
    return res.body.results[0] as {
      status: string;
      text?: string;
      error?: { code: string; message: string; details?: Record<string, unknown> };
    };
  }

  it('trades the caller’s token for the API’s, once for two calls; another person gets their own', async () => {
    const alice = await signIn('alice');
    const first = await call({ authorization: `Bearer ${alice}` });
    expect(JSON.parse(String(first.text))).toEqual({ user: 'alice' });
    expect(JSON.parse(String((await call({ authorization: `Bearer ${alice}` })).text))).toEqual({ user: 'alice' });
    expect(provider.exchanges).toEqual([{ sub: 'alice', audience: API_AUDIENCE }]);
    // The exchanged token reached the API, never the caller's own.
    expect(seen.every((s) => s.token !== alice)).toBe(true);

    const bob = await signIn('bob');
    expect(JSON.parse(String((await call({ authorization: `Bearer ${bob}` })).text))).toEqual({ user: 'bob' });
    expect(provider.exchanges).toHaveLength(2);
    const tokens = new Map(seen.map((s) => [s.user, s.token]));
    expect(tokens.get('alice')).not.toBe(tokens.get('bob'));
  }, 30_000);

  it('exchanges again once the cached token is within the refresh margin of its expiry', async () => {
    const alice = await signIn('alice');
    const before = provider.exchanges.length;
    clock.advance(250_000);
    expect(JSON.parse(String((await call({ authorization: `Bearer ${alice}` })).text))).toEqual({ user: 'alice' });
    expect(provider.exchanges).toHaveLength(before + 1);
  }, 30_000);

  it('an exchange the issuer refuses is AUTHORIZATION_REQUIRED saying so, without the provider’s text or any token', async () => {
    const mallory = await signIn('mallory');
    const refused = await call({ authorization: `Bearer ${mallory}` });
    expect(refused.error).toMatchObject({
      code: 'AUTHORIZATION_REQUIRED',
      details: { provider: 'corp', reason: 'exchange_refused', oauth_error: 'invalid_grant' },
    });
    expect(refused.error!.message).toContain('corp refused to exchange your sign-in');
    expect(JSON.stringify(refused)).not.toContain(mallory);
    expect(JSON.stringify(refused)).not.toContain('not accepted');
  }, 30_000);

  it('a call by an API key (even for a named user) has no sign-in to exchange: AUTHORIZATION_REQUIRED saying a signed-in person is needed', async () => {
    const before = provider.exchanges.length;
    for (const headers of [forUser('alice'), forUser()]) {
      const answer = await call(headers);
      expect(answer.error).toMatchObject({
        code: 'AUTHORIZATION_REQUIRED',
        details: { provider: 'corp', user_required: true, reason: 'token_exchange' },
      });
      expect(answer.error!.message).toContain("signed-in person's access token");
    }
    expect(provider.exchanges).toHaveLength(before);
  }, 30_000);

  it('the caller’s token appears in no log line', () => {
    const lines = JSON.stringify(gateway.logs);
    expect(lines).not.toContain('eyJ');
  });
});
