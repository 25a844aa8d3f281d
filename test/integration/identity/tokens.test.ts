import { createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, UnsecuredJWT } from 'jose';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../helpers/authorization-server.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { KEY_REFETCH_INTERVAL_MS } from '../../../src/identity/index.js';
import { sha256 } from '../../unit/http/auth-keys.js';
import { createTestDispatchers, startServer } from '../http-tools/helpers.js';

/** auth.oauth against a real authorization server: tokens become callers, hostile tokens get 401 with their reason. */

const RESOURCE = 'https://toolgate.example.com/';
const API_KEY = 'tg_key-beside-tokens-0123456789';
const CALL = [{ id: 'c1', name: 'LS', arguments: { path: '.' } }];
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let as: AuthorizationServer;
let t: TestApp;

beforeAll(async () => {
  as = await startAuthorizationServer({ claims: { org: 'acme' } });
  t = await buildTestApp({
    clock: new ManualClock(Date.now()),
    config: {
      keys: [{ id: 'backend', sha256: sha256(API_KEY), tenant: 'acme', scopes: ['execute'] }],
      // High enough for the flood below: the failure counter is pinned on its own.
      auth: { failures_per_minute: 1_000, oauth: [{ issuer: as.issuer, audience: RESOURCE, tenant_claim: 'org', tools_claim: 'tools' }] },
    },
  });
});
afterAll(async () => {
  await t.close();
  await as.close();
});

function rpc(method: string) {
  return { jsonrpc: '2.0', id: 1, method, params: {} };
}

async function mcp(token: string, method = 'tools/list') {
  return t.app.inject({
    method: 'POST',
    url: '/mcp',
    payload: rpc(method),
    headers: { ...bearer(token), accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
  });
}

async function refused(token: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/execute',
    payload: CALL,
    headers: { ...bearer(token), host: 'gw.test:8443' },
  });
  expect(response.statusCode).toBe(401);
  return {
    body: response.json().error as { code: string; message: string; details: { reason: string } },
    challenge: response.headers['www-authenticate'],
  };
}

describe('access tokens from the configured issuer', () => {
  it('a client_credentials token runs POST /execute and lists the tools over /mcp; an API key keeps working beside it', async () => {
    const token = await as.clientCredentials(RESOURCE, 'toolgate:execute');
    const ran = await execute(t.app, CALL, bearer(token));
    expect(ran.status).toBe(200);
    expect(ran.body.results[0].error).toBeUndefined();
    const listed = await mcp(token);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().result.tools.map((tool: { name: string }) => tool.name)).toContain('Read');
    expect((await execute(t.app, CALL, bearer(API_KEY))).status).toBe(200);
  });

  it('a forged token with a tools claim sees only those tools; the token never reaches a log line', async () => {
    const token = await as.forge({ aud: RESOURCE, tools: 'Read LS' });
    const listed = await mcp(token);
    expect(
      listed
        .json()
        .result.tools.map((tool: { name: string }) => tool.name)
        .sort(),
    ).toEqual(['LS', 'Read']);
    await refused(await as.forge({ aud: 'https://elsewhere.example/' }));
    expect(JSON.stringify(t.logs)).not.toContain(token.split('.')[2]);
  });

  it("the token's subject is the call's user, in its log lines; x-toolgate-user beside a token is 403 and runs nothing", async () => {
    const token = await as.forge({ aud: RESOURCE, sub: 'carol@example.com' });
    const before = t.logs.length;
    expect((await execute(t.app, CALL, bearer(token))).status).toBe(200);
    const lines = t.logs.slice(before);
    expect(lines.some((line) => line.msg === 'tool call' && line.user === 'carol@example.com')).toBe(true);
    const named = await execute(t.app, [{ id: 'c2', name: 'Write', arguments: { path: 'x.txt', content: 'x' } }], {
      ...bearer(token),
      'x-toolgate-user': 'mallory',
    });
    expect(named.status).toBe(403);
    expect(named.body.error.message).toContain('names its user itself');
    expect((await execute(t.app, [{ id: 'c3', name: 'LS', arguments: { path: '.' } }], bearer(token))).body.results[0].text).not.toContain(
      'x.txt',
    );
  });

  it('GET /.well-known/oauth-protected-resource (and its /mcp form) names the resource, the issuer and the scopes, without a key', async () => {
    for (const url of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        resource: RESOURCE,
        authorization_servers: [as.issuer],
        scopes_supported: ['toolgate:execute', 'toolgate:admin'],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('a 401 without a bearer names the resource metadata at the request origin, on /mcp too', async () => {
    for (const url of ['/execute', '/mcp']) {
      const response = await t.app.inject({
        method: 'POST',
        url,
        payload: url === '/mcp' ? rpc('tools/list') : CALL,
        headers: { host: 'gw.test:8443' },
      });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe(
        'Bearer resource_metadata="https://toolgate.example.com/.well-known/oauth-protected-resource"',
      );
    }
  });

  it('a scope claim that is not a list grants nothing, and scp is not read in its place', async () => {
    const token = await as.forge({ aud: RESOURCE, scope: 5, scp: 'toolgate:admin' });
    expect((await t.app.inject({ method: 'GET', url: '/circuits', headers: bearer(token) })).statusCode).toBe(403);
  });

  it('a token without the admin scope is 403 insufficient_scope naming the token scope that grants it', async () => {
    const token = await as.clientCredentials(RESOURCE, 'toolgate:execute');
    const response = await t.app.inject({ method: 'GET', url: '/audit', headers: { ...bearer(token), host: 'gw.test' } });
    expect(response.statusCode).toBe(403);
    expect(response.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_scope", scope="toolgate:admin", resource_metadata="https://toolgate.example.com/.well-known/oauth-protected-resource"',
    );
  });
});

describe('hostile tokens: 401 with a reason a developer can act on', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const cases: Array<[string, () => Promise<string>, string]> = [
    ['expired', () => as.forge({ aud: RESOURCE, exp: now() - 600 }), 'expired'],
    ['nbf in the future', () => as.forge({ aud: RESOURCE, nbf: now() + 600 }), 'not_yet_valid'],
    ['for another audience', () => as.forge({ aud: 'https://other.example/' }), 'wrong_audience'],
    ['from the real server, for another resource', () => as.clientCredentials('https://other.example/'), 'wrong_audience'],
    ['from an issuer not configured', () => as.forge({ aud: RESOURCE, iss: 'https://evil.example' }), 'unknown_issuer'],
    [
      'alg none',
      async () => new UnsecuredJWT({ iss: as.issuer, aud: RESOURCE, sub: 'alice', org: 'acme', exp: now() + 300 }).encode(),
      'unsupported_algorithm',
    ],
    [
      'HS256 keyed with the issuer’s public key',
      async () => {
        const pem = createPublicKey({ key: as.signingKey as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
        return new SignJWT({ iss: as.issuer, aud: RESOURCE, sub: 'alice', org: 'acme', exp: now() + 300, scope: 'toolgate:execute' })
          .setProtectedHeader({ alg: 'HS256', kid: as.signingKey.kid! })
          .sign(Buffer.from(pem));
      },
      'unsupported_algorithm',
    ],
    [
      'a tampered payload',
      async () => {
        const [header, , signature] = (await as.forge({ aud: RESOURCE })).split('.');
        const payload = Buffer.from(JSON.stringify({ iss: as.issuer, aud: RESOURCE, sub: 'root', org: 'acme', exp: now() + 300 })).toString(
          'base64url',
        );
        return `${header}.${payload}.${signature}`;
      },
      'bad_signature',
    ],
    ['a kid the issuer does not publish', () => as.forge({ aud: RESOURCE }, { kid: 'not-published' }), 'unknown_key'],
    ['no tenant claim', () => as.forge({ aud: RESOURCE, org: undefined }), 'missing_tenant'],
    ['no user claim', () => as.forge({ aud: RESOURCE, sub: undefined }), 'missing_user'],
    ['not a JWT, no issuer introspects', async () => 'opaque-token-value', 'malformed'],
    [
      'a JWT whose header is not JSON',
      async () => `bm90LWpzb24.${(await as.forge({ aud: RESOURCE })).split('.').slice(1).join('.')}`,
      'malformed',
    ],
    ['a JWT of another type (an ID token)', () => as.forge({ aud: RESOURCE }, { typ: 'id+jwt' }), 'malformed'],
    ['a type (typ) that is not a string', () => as.forge({ aud: RESOURCE }, { typ: 123 as unknown as string }), 'malformed'],
    ['a type (typ) carrying a header line', () => as.forge({ aud: RESOURCE }, { typ: 'x\r\nSet-Cookie: a=1' }), 'malformed'],
    ['a user (sub) with control characters', () => as.forge({ aud: RESOURCE, sub: 'alice\r\nX-Evil: 1' }), 'missing_user'],
    ['a tools claim that is not a list', () => as.forge({ aud: RESOURCE, tools: 5 }), 'malformed'],
  ];

  const presented: string[] = [];
  it.each(cases)('%s', async (_name, make, reason) => {
    const token = await make();
    presented.push(token);
    const { body, challenge } = await refused(token);
    expect(body).toMatchObject({ code: 'UNAUTHORIZED', details: { reason } });
    expect(body.message).not.toContain(token);
    expect(challenge).toMatch(
      new RegExp(
        `^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="https://toolgate\\.example\\.com/\\.well-known/oauth-protected-resource"$`,
      ),
    );
    if (reason === 'missing_tenant') expect(body.message).toContain('"org" claim');
  });

  it('none of those tokens reached a log line', () => {
    const logs = JSON.stringify(t.logs);
    expect(presented).toHaveLength(cases.length);
    for (const token of presented) expect(logs).not.toContain(token.split('.').at(-1) || token);
  });

  it('a flood of 200 unknown kids fetches the key set at most once per interval', async () => {
    await execute(t.app, CALL, bearer(await as.forge({ aud: RESOURCE })));
    const before = as.hits('/jwks');
    const tokens = await Promise.all(Array.from({ length: 200 }, (_, i) => as.forge({ aud: RESOURCE }, { kid: `flood-${i}` })));
    const answers = await Promise.all(
      tokens.map((token) => t.app.inject({ method: 'POST', url: '/execute', payload: CALL, headers: bearer(token) })),
    );
    expect(answers.map((a) => a.json().error.details.reason)).toEqual(Array(200).fill('unknown_key'));
    expect(as.hits('/jwks') - before).toBeLessThanOrEqual(1);
    expect(KEY_REFETCH_INTERVAL_MS).toBeGreaterThanOrEqual(30_000);
  });
});

describe('a client token is never passed on', () => {
  it('an HTTP tool called with a token sends the upstream neither the token nor an Authorization header', async () => {
    const upstream = await startServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
    const app = await buildTestApp({
      builtins: false,
      clock: new ManualClock(Date.now()),
      dispatchers: createTestDispatchers(),
      config: {
        auth: { oauth: [{ issuer: as.issuer, audience: RESOURCE, tenant_claim: 'org' }] },
        tools: [
          {
            name: 'upstream',
            description: 'A loopback service.',
            parameters: { type: 'object', properties: {} },
            http: { method: 'GET', url: `${upstream.origin}/x`, allow_private_network: true, retries: 0 },
          },
        ],
      },
    });
    try {
      const token = await as.clientCredentials(RESOURCE, 'toolgate:execute');
      const ran = await execute(app.app, [{ id: 'u', name: 'upstream', arguments: {} }], bearer(token));
      expect(ran.body.results[0].error).toBeUndefined();
      expect(upstream.requests).toHaveLength(1);
      expect(upstream.requests[0]!.headers.authorization).toBeUndefined();
      expect(JSON.stringify(upstream.requests[0])).not.toContain(token.split('.')[2]);
    } finally {
      await app.close();
      await upstream.close();
    }
  });
});

describe('the resource metadata URL', () => {
  it('is beside the configured audience whatever the Host or X-Forwarded headers; an audience that is no URL falls back to the origin, forwarded by a trusted proxy only', async () => {
    const forwarded = { host: 'internal:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'toolgate.example.com' };
    const spoofed = await t.app.inject({ method: 'GET', url: '/tools', headers: { ...forwarded, host: 'evil.example' } });
    expect(spoofed.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="https://toolgate.example.com/.well-known/oauth-protected-resource"',
    );
    const gateway = (trust: boolean) =>
      buildTestApp({
        clock: new ManualClock(Date.now()),
        config: {
          ...(trust && { trust_proxy: ['127.0.0.1'] }),
          auth: { oauth: [{ issuer: as.issuer, audience: 'api://toolgate', tenant_claim: 'org' }] },
        },
      });
    const proxied = await gateway(true);
    const direct = await gateway(false);
    try {
      const behind = await proxied.app.inject({ method: 'GET', url: '/tools', headers: forwarded });
      expect(behind.headers['www-authenticate']).toBe(
        'Bearer resource_metadata="https://toolgate.example.com/.well-known/oauth-protected-resource"',
      );
      const untrusted = await direct.app.inject({ method: 'GET', url: '/tools', headers: forwarded });
      expect(untrusted.headers['www-authenticate']).toBe(
        'Bearer resource_metadata="http://internal:8080/.well-known/oauth-protected-resource"',
      );
    } finally {
      await proxied.close();
      await direct.close();
    }
  });
});
