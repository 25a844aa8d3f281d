import { createHash, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { startAuthorizationServer } from '../../helpers/authorization-server.js';
import { launchBrowser } from '../../helpers/browser.js';

const RESOURCE = 'https://toolgate.example.com/';
const as = await startAuthorizationServer({ claims: { org: 'acme' } });
afterAll(() => as.close());

describe('the test authorization server', () => {
  it('issues client_credentials JWT access tokens for the named resource, verifiable with its published keys', async () => {
    const metadata = (await (await fetch(`${as.issuer}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
    const token = await as.clientCredentials(RESOURCE, 'toolgate:execute');
    const { payload, protectedHeader } = await jwtVerify(token, createRemoteJWKSet(new URL(metadata.jwks_uri)), {
      issuer: as.issuer,
      audience: RESOURCE,
    });
    expect(protectedHeader).toMatchObject({ typ: 'at+jwt', alg: 'RS256', kid: as.signingKey.kid });
    expect(payload).toMatchObject({ client_id: as.client.id, scope: 'toolgate:execute', org: 'acme' });
    expect(as.hits('/token')).toBe(1);
  });

  it('forges tokens with its own key that its key set verifies, and others that it does not', async () => {
    const keys = createRemoteJWKSet(new URL(`${as.issuer}/jwks`));
    await expect(jwtVerify(await as.forge({ aud: RESOURCE }), keys, { audience: RESOURCE })).resolves.toBeTruthy();
    const expired = await as.forge({ aud: RESOURCE, exp: Math.floor(Date.now() / 1000) - 600 });
    await expect(jwtVerify(expired, keys)).rejects.toThrow(/exp/);
  });

  it('registers clients dynamically (RFC 7591)', async () => {
    const response = await fetch(`${as.issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:4000/cb'], token_endpoint_auth_method: 'none', application_type: 'native' }),
    });
    expect(response.status).toBe(201);
    expect(((await response.json()) as { client_id: string }).client_id).toBeTruthy();
  });

  it('signs a user in through its own pages in a browser: authorization_code with PKCE, the token names the user', async () => {
    const browser = await launchBrowser();
    try {
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const redirectUri = as.publicClient.redirectUris[0]!;
      let code: string | null = null;
      await browser.context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
      await browser.context.route(`${redirectUri}**`, (route) => {
        code = new URL(route.request().url()).searchParams.get('code');
        return route.fulfill({ body: 'signed in' });
      });
      const page = await browser.context.newPage();
      const authorize = new URL(`${as.issuer}/auth`);
      authorize.search = new URLSearchParams({
        client_id: as.publicClient.id,
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: 'openid toolgate:execute',
        resource: RESOURCE,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'xyz',
      }).toString();
      await page.goto(authorize.href);
      await page.fill('input[name=login]', 'alice');
      await page.fill('input[name=password]', 'any');
      await page.click('button[type=submit]');
      await page.click('button[type=submit]');
      await page.waitForURL(`${redirectUri}**`);
      expect(code).toBeTruthy();
      const response = await fetch(`${as.issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: code!,
          code_verifier: verifier,
          redirect_uri: redirectUri,
          client_id: as.publicClient.id,
          resource: RESOURCE,
        }).toString(),
      });
      const body = (await response.json()) as { access_token: string };
      expect(decodeJwt(body.access_token)).toMatchObject({ sub: 'alice', aud: RESOURCE, scope: 'toolgate:execute', org: 'acme' });
    } finally {
      await browser.close();
    }
  });

  it('drops every connection while down, as an unreachable server', async () => {
    as.setDown(true);
    await expect(fetch(`${as.issuer}/jwks`)).rejects.toThrow();
    as.setDown(false);
    expect((await fetch(`${as.issuer}/jwks`)).status).toBe(200);
  });
});
