import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../helpers/authorization-server.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { KEY_MAX_AGE_MS, KEY_STALE_MS } from '../../../src/identity/index.js';

/** The issuer's availability: discovery at start-up, lazy issuers, cached keys while it is down, introspection. */

const RESOURCE = 'https://toolgate.example.com/';
const CALL = [{ id: 'c1', name: 'LS', arguments: { path: '.' } }];
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});

async function server(options: Parameters<typeof startAuthorizationServer>[0] = {}): Promise<AuthorizationServer> {
  const as = await startAuthorizationServer({ claims: { org: 'acme' }, ...options });
  opened.push(as);
  return as;
}

async function gateway(oauth: Record<string, unknown>, options: { env?: NodeJS.ProcessEnv; failures?: number } = {}): Promise<TestApp> {
  const t = await buildTestApp({
    clock: new ManualClock(Date.now()),
    config: { auth: { failures_per_minute: options.failures ?? 1_000, oauth: [{ audience: RESOURCE, tenant_claim: 'org', ...oauth }] } },
    ...(options.env && { env: options.env }),
  });
  opened.push(t);
  return t;
}

describe('discovery at start-up', () => {
  it('an issuer that cannot be discovered stops start-up, named; with RFC 8414 metadata its own well-known path is read first', async () => {
    const as = await server();
    as.setDown(true);
    await expect(gateway({ issuer: as.issuer })).rejects.toThrow(`auth.oauth.0.issuer: ${as.issuer}: its metadata cannot be read`);
    const rfc8414 = await server({ oauthMetadata: true });
    await gateway({ issuer: rfc8414.issuer });
    expect(rfc8414.requests[0]).toBe('/.well-known/oauth-authorization-server');
    expect(rfc8414.hits('/.well-known/openid-configuration')).toBe(0);
  });

  it('a lazy issuer is a warning: its tokens answer 503 until a retry discovers it', async () => {
    const as = await server();
    as.setDown(true);
    const t = await gateway({ issuer: as.issuer, lazy: true });
    expect(t.logs.some((line) => line.level === 40 && String(line.msg).includes('lazy'))).toBe(true);
    const token = await as.forge({ aud: RESOURCE });
    const early = await execute(t.app, CALL, bearer(token));
    expect(early.status).toBe(503);
    expect(early.body.error.code).toBe('ISSUER_UNAVAILABLE');
    as.setDown(false);
    await expect.poll(async () => (await execute(t.app, CALL, bearer(token))).status, { timeout: 5_000, interval: 200 }).toBe(200);
  });
});

describe('the issuer down', () => {
  it('keys fetched before keep verifying new tokens; with none fetched yet the answer is 503, then 200 once it is back', async () => {
    const as = await server();
    const t = await gateway({ issuer: as.issuer });
    as.setDown(true);
    const cold = await execute(t.app, CALL, bearer(await as.forge({ aud: RESOURCE })));
    expect(cold.status).toBe(503);
    expect(cold.body.error.code).toBe('ISSUER_UNAVAILABLE');
    expect(cold.headers['retry-after']).toBe('1');
    as.setDown(false);
    t.clock.advance(1_000);
    expect((await execute(t.app, CALL, bearer(await as.forge({ aud: RESOURCE })))).status).toBe(200);
    // Past the keys' age the issuer is asked again; down, the keys it gave before still verify.
    const later = () => as.forge({ aud: RESOURCE, iat: Math.floor(t.clock.now() / 1000), exp: Math.floor(t.clock.now() / 1000) + 300 });
    as.setDown(true);
    t.clock.advance(KEY_MAX_AGE_MS);
    expect((await execute(t.app, CALL, bearer(await later()))).status).toBe(200);
    as.setDown(false);
    const hits = as.hits('/jwks');
    t.clock.advance(KEY_MAX_AGE_MS);
    expect((await execute(t.app, CALL, bearer(await later()))).status).toBe(200);
    expect(as.hits('/jwks')).toBe(hits + 1);
    // Keys not fetched again for a day are not trusted while the issuer stays down: 503, then 200 once it answers.
    as.setDown(true);
    t.clock.advance(KEY_STALE_MS);
    const stale = await execute(t.app, CALL, bearer(await later()));
    expect(stale.status).toBe(503);
    expect(stale.body.error.code).toBe('ISSUER_UNAVAILABLE');
    as.setDown(false);
    t.clock.advance(1_000);
    expect((await execute(t.app, CALL, bearer(await later()))).status).toBe(200);
  });
});

describe('introspection (RFC 7662) of tokens that are not JWTs', () => {
  it('an opaque token is introspected with the configured client, and its answer reused: one introspection for two requests', async () => {
    const as = await server({ accessTokenFormat: 'opaque', defaultResource: RESOURCE });
    const t = await gateway(
      { issuer: as.issuer, introspection: { client_id: as.client.id, client_secret_env: 'INTROSPECTION_SECRET' } },
      { env: { INTROSPECTION_SECRET: as.client.secret } },
    );
    const token = await as.clientCredentials(RESOURCE, 'toolgate:execute');
    expect(token.split('.')).toHaveLength(1);
    expect((await execute(t.app, CALL, bearer(token))).status).toBe(200);
    expect((await execute(t.app, CALL, bearer(token))).status).toBe(200);
    expect(as.hits('/token/introspection')).toBe(1);
    const unknown = await execute(t.app, CALL, bearer('an-opaque-value-the-issuer-never-issued'));
    expect(unknown.body.error).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'inactive' } });
  });

  it('a missing client secret is a start-up problem naming its variable', async () => {
    const as = await server();
    await expect(gateway({ issuer: as.issuer, introspection: { client_id: 'x', client_secret_env: 'NOT_SET_ANYWHERE' } })).rejects.toThrow(
      'auth.oauth.0.introspection.client_secret_env: NOT_SET_ANYWHERE is not set',
    );
  });
});

describe('the failed-attempts counter', () => {
  it('counts bad tokens as it counts bad keys: past the limit, 429 even for a good token', async () => {
    const as = await server();
    const t = await gateway({ issuer: as.issuer }, { failures: 3 });
    for (let i = 0; i < 3; i++) {
      expect((await execute(t.app, CALL, bearer(await as.forge({ aud: 'https://other.example/' })))).status).toBe(401);
    }
    expect((await execute(t.app, CALL, bearer(await as.forge({ aud: 'https://other.example/' })))).status).toBe(429);
    expect((await execute(t.app, CALL, bearer(await as.forge({ aud: RESOURCE })))).status).toBe(429);
  });
});
