import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindingCookie } from '../../../src/vault/links.js';
import { launchBrowser, type Browser } from '../../helpers/browser.js';
import { forUser } from '../../helpers/users.js';
import { authorizeInBrowser, callFor, HttpBrowser, startFleet, type Fleet } from './fleet.js';

/**
 * docs/credentials.md, "What a call does" and "The authorization link": a real provider (oidc-provider), a resource server
 * that checks every token at it, two replicas on one Redis, and chromium finishing the flow as the person.
 */
describe('per-user credentials: the authorization link', () => {
  let fleet: Fleet;
  let browser: Browser;
  beforeAll(async () => {
    fleet = await startFleet();
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await fleet?.close();
  });

  const linkOf = (result: Awaited<ReturnType<typeof callFor>>) => String(result.error?.details?.authorization_url);

  it('a first call answers AUTHORIZATION_REQUIRED with a link; once the person authorizes, the retry runs as them on any replica', async () => {
    const first = await callFor(fleet.a, 'whoami', 'alice');
    expect(first.status).toBe('error');
    expect(first.error).toMatchObject({ code: 'AUTHORIZATION_REQUIRED', retryable: false, details: { provider: 'corp', reason: 'none' } });
    const link = linkOf(first);
    expect(link).toMatch(new RegExp(`^${fleet.publicUrl}/oauth/authorize/[A-Za-z0-9_-]{43}$`));
    // A sentence the model can pass on as it is, the link in it.
    expect(first.error!.message).toContain(`Please open ${link} to authorize it`);
    expect(fleet.api.seen).toHaveLength(0);

    const page = await authorizeInBrowser(browser, link, 'alice', fleet.publicUrl);
    expect(page).toContain('toolgate may now act as you at corp');

    for (const replica of [fleet.a, fleet.b]) {
      const retry = await callFor(replica, 'whoami', 'alice');
      expect(retry.status).toBe('success');
      expect(JSON.parse(String(retry.text))).toEqual({ user: 'alice' });
    }
    expect(new Set(fleet.api.seen.map((s) => s.user))).toEqual(new Set(['alice']));
  }, 60_000);

  it('two people, two grants: each call carries its own person’s token, never another’s', async () => {
    const bobFirst = await callFor(fleet.b, 'whoami', 'bob');
    expect(bobFirst.error?.code).toBe('AUTHORIZATION_REQUIRED');
    await browser.context.clearCookies();
    expect(await authorizeInBrowser(browser, linkOf(bobFirst), 'bob', fleet.publicUrl)).toContain('Connected');
    fleet.api.seen.length = 0;
    const answers = await Promise.all(
      ['alice', 'bob', 'alice', 'bob'].map(async (user, i) => ({ user, result: await callFor(i % 2 ? fleet.a : fleet.b, 'whoami', user) })),
    );
    for (const { user, result } of answers) expect(JSON.parse(String(result.text))).toEqual({ user });
    const tokens = new Map<string, Set<string>>();
    for (const { user, token } of fleet.api.seen) tokens.set(user, (tokens.get(user) ?? new Set()).add(token));
    expect([...tokens.keys()].sort()).toEqual(['alice', 'bob']);
    const [alice, bob] = [tokens.get('alice')!, tokens.get('bob')!];
    expect([...alice].some((token) => bob.has(token))).toBe(false);
  }, 60_000);

  it('a call without a person answers AUTHORIZATION_REQUIRED saying a person is needed, with no link', async () => {
    const keyOwn = await callFor(fleet.a, 'whoami');
    expect(keyOwn.error).toMatchObject({ code: 'AUTHORIZATION_REQUIRED', details: { provider: 'corp', user_required: true } });
    expect(keyOwn.error!.details!.authorization_url).toBeUndefined();
    expect(keyOwn.error!.message).toContain('this call names no person');
  });

  it('refusals for one person, provider and scopes hand out the same link while it lives unused: the link keys do not grow', async () => {
    const linkKeys = async () => (await fleet.redis.keys(`{${fleet.keyPrefix}:oauth}:link:*`)).length;
    const before = await linkKeys();
    const first = linkOf(await callFor(fleet.a, 'whoami', 'rita'));
    const again = await Promise.all(Array.from({ length: 40 }, (_, i) => callFor(i % 2 ? fleet.a : fleet.b, 'whoami', 'rita')));
    for (const answer of again) expect(linkOf(answer)).toBe(first);
    expect(await linkKeys()).toBe(before + 1);
    expect(linkOf(await callFor(fleet.a, 'whoami', 'rosa'))).not.toBe(first);
    // Once opened, the link is spent: the next refusal makes a new one.
    expect((await fetch(first, { redirect: 'manual' })).status).toBe(302);
    expect(linkOf(await callFor(fleet.b, 'whoami', 'rita'))).not.toBe(first);
  });

  it('a link works once: opened again it is refused and nothing is begun', async () => {
    const link = linkOf(await callFor(fleet.a, 'whoami', 'carol'));
    const first = await fetch(link, { redirect: 'manual' });
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toMatch(new RegExp(`^${fleet.provider.issuer}/auth\\?`));
    const location = new URL(first.headers.get('location')!);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('redirect_uri')).toBe(`${fleet.publicUrl}/oauth/callback`);
    expect(first.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Lax/);
    const again = await fetch(link, { redirect: 'manual' });
    expect(again.status).toBe(404);
    expect(await again.text()).toContain('already used or has expired');
  });

  it('a link opened while the provider cannot be reached shows a page saying so, never an error envelope', async () => {
    const gateway = await fleet.replica(fleet.env);
    const link = new URL(linkOf(await callFor(gateway, 'whoami', 'olga')));
    fleet.provider.setDown(true);
    try {
      // This replica has not discovered the provider's endpoints yet: it must ask now, and cannot.
      const answer = await gateway.app.inject({ method: 'GET', url: link.pathname });
      expect(answer.statusCode).toBe(502);
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(answer.body).toContain('The provider could not be reached');
    } finally {
      fleet.provider.setDown(false);
    }
  });

  it('a state the gateway did not issue, or one already used, is refused', async () => {
    const bogus = await fetch(`${fleet.publicUrl}/oauth/callback?state=forged&code=anything`, {
      headers: { cookie: `${bindingCookie('forged')}=anything` },
    });
    expect(bogus.status).toBe(400);
    expect(await bogus.text()).toContain('unknown, was already finished, or has expired');
    // Without the cookie its link set, no flow is looked up at all.
    const cookieless = await fetch(`${fleet.publicUrl}/oauth/callback?state=forged&code=anything`);
    expect(await cookieless.text()).toContain('finished in another browser');
    const missing = await fetch(`${fleet.publicUrl}/oauth/callback?code=anything`);
    expect(missing.status).toBe(400);
    // Repeated or over-long parameters are refused with the same page, never a JSON envelope.
    for (const query of ['state=a&state=b&code=c', 'state=a&code=b&code=c', `state=${'s'.repeat(513)}&code=c`]) {
      const malformed = await fetch(`${fleet.publicUrl}/oauth/callback?${query}`);
      expect(malformed.status, query).toBe(400);
      expect(malformed.headers.get('content-type'), query).toMatch(/^text\/html/);
      expect(await malformed.text(), query).toContain('malformed answer');
    }
  });

  it('the link opened by another person stores nothing: the ID token names them, not the person it was made for', async () => {
    const link = linkOf(await callFor(fleet.a, 'whoami', 'dave'));
    await browser.context.clearCookies();
    const page = await authorizeInBrowser(browser, link, 'mallory', fleet.publicUrl);
    expect(page).toContain('The link was made for another person than the one who signed in at corp');
    expect(await fleet.a.state.grants.getGrant('acme', 'dave', 'corp')).toBeNull();
    expect(await fleet.a.state.grants.getGrant('acme', 'mallory', 'corp')).toBeNull();
    expect((await callFor(fleet.b, 'whoami', 'dave')).error?.code).toBe('AUTHORIZATION_REQUIRED');
  }, 60_000);

  it('a flow finished in another browser than the one that opened the link is refused (its cookie is missing), and the flow stays for its own', async () => {
    const link = linkOf(await callFor(fleet.a, 'whoami', 'erin'));
    const person = new HttpBrowser();
    const callback = await person.authorize(link, 'erin', `${fleet.publicUrl}/oauth/callback`);
    expect(callback).toMatch(/[?&]code=/);
    // Another browser: the same callback URL, without the link's cookie.
    const elsewhere = await fetch(callback);
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain('finished in another browser');
    expect(await fleet.a.state.grants.getGrant('acme', 'erin', 'corp')).toBeNull();
    // Refused before the flow was taken, with an error= answer too: the browser that opened the link still finishes it.
    const declinedElsewhere = await fetch(
      `${fleet.publicUrl}/oauth/callback?state=${new URL(callback).searchParams.get('state')}&error=access_denied`,
    );
    expect(declinedElsewhere.status).toBe(400);
    expect((await person.visit(callback)).status).toBe(200);
    expect(await fleet.a.state.grants.deleteGrant('acme', 'erin', 'corp')).not.toBeNull();
  });

  it('a code delivered with another flow’s state fails PKCE at the provider and stores nothing', async () => {
    const linkTwo = linkOf(await callFor(fleet.a, 'whoami', 'frank'));
    const person = new HttpBrowser();
    // Flow two is begun in this browser (its cookie set) and left at the provider's door; its link spent, the next is another.
    const two = await person.visit(linkTwo);
    const linkOne = linkOf(await callFor(fleet.a, 'whoami', 'frank'));
    const stateTwo = new URL(two.headers.get('location')!).searchParams.get('state')!;
    const callbackOne = new URL(await person.authorize(linkOne, 'frank', `${fleet.publicUrl}/oauth/callback`));
    callbackOne.searchParams.set('state', stateTwo);
    const answer = await person.visit(callbackOne.href);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('corp refused to complete the authorization');
    expect(await fleet.a.state.grants.getGrant('acme', 'frank', 'corp')).toBeNull();
  });

  it('an authorization the person declines at the provider stores nothing', async () => {
    const link = linkOf(await callFor(fleet.a, 'whoami', 'gina'));
    const person = new HttpBrowser();
    const begun = await person.visit(link);
    const state = new URL(begun.headers.get('location')!).searchParams.get('state')!;
    const answer = await person.visit(`${fleet.publicUrl}/oauth/callback?state=${state}&error=access_denied`);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('corp did not grant access (access_denied)');
  });

  it('no token reaches a log line, an error or an output: an upstream echoing the token shows [REDACTED]', async () => {
    const echoed = await callFor(fleet.a, 'echo_token', 'alice');
    expect(echoed.status).toBe('success');
    const aliceTokens = fleet.api.seen.filter((s) => s.user === 'alice').map((s) => s.token);
    expect(aliceTokens.length).toBeGreaterThan(0);
    expect(JSON.parse(String(echoed.text)).token).toBe('[REDACTED]');
    const logs = JSON.stringify([...fleet.a.logs, ...fleet.b.logs]);
    for (const token of fleet.api.seen.map((s) => s.token)) {
      expect(String(echoed.text)).not.toContain(token);
      expect(logs).not.toContain(token);
    }
  });

  it('lists the person’s connections and the tenant’s without any token; DELETE revokes at the provider and forgets', async () => {
    const mine = await fleet.a.app.inject({ method: 'GET', url: '/me/connections', headers: forUser('bob') });
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toEqual({
      connections: [{ provider: 'corp', connected: true, scopes: [], connected_at: expect.any(String), expires_at: expect.any(String) }],
    });
    const none = await fleet.a.app.inject({ method: 'GET', url: '/me/connections', headers: forUser('nobody') });
    expect(none.json()).toEqual({ connections: [{ provider: 'corp', connected: false, scopes: [] }] });
    const keyOwn = await fleet.a.app.inject({ method: 'GET', url: '/me/connections', headers: forUser() });
    expect(keyOwn.statusCode).toBe(400);

    const admin = await fleet.a.app.inject({
      method: 'GET',
      url: '/admin/connections',
      headers: { authorization: 'Bearer tg_ops-of-acme-0123456789' },
    });
    expect(admin.statusCode).toBe(200);
    const listed = admin.json() as { connections: Array<{ user: string }> };
    expect(listed.connections.map((c) => c.user).sort()).toEqual(['alice', 'bob']);
    const body = admin.body + mine.body;
    for (const token of fleet.api.seen.map((s) => s.token)) expect(body).not.toContain(token);

    // The console shows an admin the tenant's connections, and no token.
    const page = await browser.context.newPage();
    try {
      await page.goto(`${fleet.publicUrl}/console`);
      await page.getByLabel('API key').fill('tg_ops-of-acme-0123456789');
      await page.getByRole('button', { name: 'Sign in' }).click();
      const shown = page.locator('#connections');
      await expect.poll(() => shown.textContent(), { timeout: 10_000 }).toContain('bob — corp: connected');
      const text = (await page.textContent('body')) ?? '';
      expect(text).toContain('alice — corp: connected');
      for (const token of fleet.api.seen.map((s) => s.token)) expect(text).not.toContain(token);
    } finally {
      await page.close();
    }

    const revocations = fleet.provider.hits('/token/revocation');
    const gone = await fleet.b.app.inject({ method: 'DELETE', url: '/me/connections/corp', headers: forUser('bob') });
    expect(gone.json()).toEqual({ provider: 'corp', forgotten: true, revoked: true });
    expect(fleet.provider.hits('/token/revocation')).toBe(revocations + 1);
    expect(await fleet.a.state.grants.getGrant('acme', 'bob', 'corp')).toBeNull();
    expect((await callFor(fleet.a, 'whoami', 'bob')).error?.code).toBe('AUTHORIZATION_REQUIRED');
    const unknown = await fleet.b.app.inject({ method: 'DELETE', url: '/me/connections/nope', headers: forUser('bob') });
    expect(unknown.statusCode).toBe(404);
  });
});
