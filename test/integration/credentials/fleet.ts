import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { createRedisStateStore, type RedisStateStore } from '../../../src/state/redis/index.js';
import type { Tool } from '../../../src/tools/tool.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../helpers/authorization-server.js';
import type { Browser } from '../../helpers/browser.js';
import { freePort } from '../../helpers/redis-global-setup.js';
import { step } from '../../helpers/step.js';
import { ON_BEHALF_KEYS, forUser } from '../../helpers/users.js';

/** A loopback API that checks each bearer token at the provider (RFC 7662) and answers for the person it was issued to. */
export interface ResourceServer {
  url: string;
  /** Every token it was sent, with the person it was for. */
  seen: Array<{ user: string; token: string }>;
  close(): Promise<void>;
}

async function startResourceServer(provider: AuthorizationServer): Promise<ResourceServer> {
  const seen: ResourceServer['seen'] = [];
  const basic = `Basic ${Buffer.from(`${provider.client.id}:${provider.client.secret}`).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const answer = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (!token) return answer(401, { error: 'no bearer token' });
    // /unchecked answers without asking the provider, so it answers while the provider is down: which token came.
    if (req.url === '/unchecked') return answer(200, { sha256: createHash('sha256').update(token).digest('hex') });
    void fetch(`${provider.issuer}/token/introspection`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    })
      .then((r) => r.json() as Promise<{ active: boolean; sub?: string }>)
      .then(
        (info) => {
          if (!info.active || !info.sub) return answer(401, { error: 'invalid_token' });
          seen.push({ user: info.sub, token });
          // /echo repeats the token, as a careless upstream might.
          return answer(200, req.url === '/echo' ? { user: info.sub, token } : { user: info.sub });
        },
        () => answer(502, { error: 'introspection failed' }),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const vaultKey = () => randomBytes(32).toString('base64');

/** Two replicas of one gateway on one Redis prefix and one clock, listening on loopback; `a` is at the public URL. */
export interface Fleet {
  provider: AuthorizationServer;
  api: ResourceServer;
  a: TestApp;
  b: TestApp;
  clock: ManualClock;
  publicUrl: string;
  keyPrefix: string;
  env: NodeJS.ProcessEnv;
  /** A plain client of the same Redis. */
  redis: Redis;
  /** Another replica of the same fleet, e.g. with other vault keys or more tools; closed with the fleet. */
  replica(env: NodeJS.ProcessEnv, tools?: Tool[]): Promise<TestApp>;
  close(): Promise<void>;
}

const STATE = configFrom().state;

/** The provider `corp` at `provider`, as toolgate's web client (its secret in CORP_CLIENT_SECRET), with `more`. */
export const corpProvider = (provider: AuthorizationServer, more: Record<string, unknown>) => ({
  name: 'corp',
  issuer: provider.issuer,
  client_id: provider.webClient.id,
  client_secret: '${CORP_CLIENT_SECRET}',
  allow_private_network: true,
  ...more,
});

export function gatewayConfig(provider: AuthorizationServer, api: ResourceServer, userClaim = true): Record<string, unknown> {
  const tool = (name: string, path: string) => ({
    name,
    description: `${name} at the corporate API, as the calling person.`,
    parameters: { type: 'object' },
    http: { method: 'GET', url: `${api.url}${path}`, allow_private_network: true, retries: 0 },
    auth: { provider: 'corp' },
  });
  return {
    keys: ON_BEHALF_KEYS,
    oauth_providers: [corpProvider(provider, userClaim ? { user_claim: 'sub' } : {})],
    oauth: { link_ttl_seconds: 600, refresh_before_seconds: 60 },
    tools: [tool('whoami', '/me'), tool('echo_token', '/echo'), tool('unchecked', '/unchecked')],
  };
}

/** `extend`: more configuration, given the provider (e.g. upstreams that check its tokens). */
export async function startFleet(
  options: { userClaim?: boolean; extend?: (provider: AuthorizationServer) => Promise<Record<string, unknown>> } = {},
): Promise<Fleet> {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const provider = await startAuthorizationServer({ webClient: { redirectUris: [`${publicUrl}/oauth/callback`] } });
  const api = await startResourceServer(provider);
  const keyPrefix = `credentials-${randomUUID()}`;
  const clock = new ManualClock(Date.now());
  const url = inject('redisUrl');
  const env = {
    CORP_CLIENT_SECRET: provider.webClient.secret,
    TOOLGATE_PUBLIC_URL: publicUrl,
    TOOLGATE_VAULT_KEY: vaultKey(),
    TOOLGATE_VAULT_KEY_ID: 'k1',
  };
  const config = { ...gatewayConfig(provider, api, options.userClaim ?? true), ...(await options.extend?.(provider)) };
  const stores: RedisStateStore[] = [];
  const apps: TestApp[] = [];
  const replica = async (replicaEnv: NodeJS.ProcessEnv, tools: Tool[] = []) => {
    const state = createRedisStateStore({ url, keyPrefix, clock, connectTimeoutMs: STATE.connect_timeout_ms, commandTimeoutMs: 2_000 });
    stores.push(state);
    const app = await buildTestApp({ state, clock, config, env: replicaEnv, builtins: false, tools });
    apps.push(app);
    return app;
  };
  const a = await replica(env);
  const b = await replica(env);
  await a.app.listen({ host: '127.0.0.1', port });
  const redis = new Redis(url);
  return {
    provider,
    api,
    a,
    b,
    clock,
    publicUrl,
    keyPrefix,
    env,
    redis,
    replica,
    async close() {
      await Promise.all(apps.map((app) => app.close()));
      await Promise.all(stores.map((s) => s.close()));
      redis.disconnect();
      await api.close();
      await provider.close();
    },
  };
}

/** One call of `tool` for `user` (none: the key's own), its single result. */
export async function callFor(gateway: TestApp, tool: string, user?: string, id: string = randomUUID()) {
  const res = await execute(gateway.app, [{ id, name: tool, arguments: {} }], forUser(user));
  if (!Array.isArray(res.body.results)) throw new Error(`POST /execute answered ${res.status}: ${JSON.stringify(res.body)}`);
  return (res.body as { results: unknown[] }).results[0] as {
    status: string;
    text?: string;
    error?: { code: string; message: string; retryable: boolean; details?: Record<string, unknown> };
  };
}

/** `user` connects through the HTTP-driven flow, as a browser would, from the link a first call of `whoami` answers. */
export async function connectPerson(fleet: Fleet, user: string): Promise<void> {
  // The ID token's expiry is the provider's real time: the gateway's clock is brought back to it.
  fleet.clock.set(Date.now());
  const first = await callFor(fleet.a, 'whoami', user);
  expect(first.error?.code).toBe('AUTHORIZATION_REQUIRED');
  const person = new HttpBrowser();
  const callback = await person.authorize(String(first.error!.details!.authorization_url), user, `${fleet.publicUrl}/oauth/callback`);
  expect((await person.visit(callback)).status).toBe(200);
}

/**
 * A person opens `link` in the browser and signs in at the provider as `login` (its development pages take any
 * password), consents, and lands back on the gateway: the text of the page they see there.
 */
export async function authorizeInBrowser(browser: Browser, link: string, login: string, publicUrl: string, ms = 20_000): Promise<string> {
  const page = await step('opening a page', ms, () => browser.context.newPage());
  try {
    await step('the link', ms, () => page.goto(link));
    await step('the login form', ms, async () => {
      await page.fill('input[name=login]', login);
      await page.fill('input[name=password]', 'any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
    });
    await step('the consent form', ms, () => page.getByRole('button', { name: 'Continue' }).click());
    await step('back at the gateway', ms, () => page.waitForURL((url) => url.href.startsWith(`${publicUrl}/oauth/callback`)));
    return (await page.textContent('body')) ?? '';
  } finally {
    await step('closing the page', ms, () => page.close());
  }
}

/** Cookies by origin, as a browser keeps them (names and values only: every cookie of an origin is sent back to it). */
class CookieJar {
  private readonly jars = new Map<string, Map<string, string>>();

  take(url: string, response: Response): void {
    const jar = this.jars.get(new URL(url).origin) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    this.jars.set(new URL(url).origin, jar);
  }

  header(url: string): string {
    return [...(this.jars.get(new URL(url).origin) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** A browser without a window: follows redirects by hand, keeping cookies per origin, stopping before `stopAt`. */
export class HttpBrowser {
  readonly jar = new CookieJar();

  async visit(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: {
        cookie: this.jar.header(url),
        ...(init.form && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(init.form && { body: new URLSearchParams(init.form).toString() }),
    });
    this.jar.take(url, response);
    return response;
  }

  /** Follows redirects from `url` until one points at `stopAt` (returned, not visited) or a page answers. */
  async follow(
    url: string,
    stopAt: string,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<{ url: string; response?: Response }> {
    let next = url;
    let first: typeof init | undefined = init;
    for (let hops = 0; hops < 10; hops++) {
      if (next.startsWith(stopAt)) return { url: next };
      const response = await this.visit(next, first);
      first = undefined;
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { url: next, response };
      next = new URL(location, next).href;
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /**
   * Opens `link`, signs in at the provider's development pages as `login` and consents: the callback URL the provider
   * sends the browser to, not visited.
   */
  async authorize(link: string, login: string, callbackPrefix: string): Promise<string> {
    const atLogin = await this.follow(link, callbackPrefix);
    if (!atLogin.response) throw new Error(`the link went straight to ${atLogin.url}`);
    const uid = /\/interaction\/([^/?]+)/.exec(atLogin.url)?.[1];
    if (!uid) throw new Error(`no sign-in page at ${atLogin.url}`);
    const origin = new URL(atLogin.url).origin;
    const atConsent = await this.follow(`${origin}/interaction/${uid}`, callbackPrefix, {
      method: 'POST',
      form: { prompt: 'login', login, password: 'any password' },
    });
    const consent = /\/interaction\/([^/?]+)/.exec(atConsent.url)?.[1];
    if (!consent) return atConsent.url;
    const done = await this.follow(`${origin}/interaction/${consent}`, callbackPrefix, { method: 'POST', form: { prompt: 'consent' } });
    return done.url;
  }
}

/** The clock inside the refresh margin of `user`'s access token (the provider's tokens live 3600 s; the margin is 60 s). */
export async function nearExpiryOf(fleet: Fleet, user: string): Promise<void> {
  const grant = await fleet.a.state.grants.getGrant('acme', user, 'corp');
  fleet.clock.set(grant!.expiresAt! - 30_000);
}

/** A fleet started before the describe block's tests and closed after them; read it inside a test. */
export function useFleet(): () => Fleet {
  let fleet: Fleet | undefined;
  beforeAll(async () => {
    fleet = await startFleet();
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
  });
  return () => fleet!;
}
