import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { createEnvCredentials } from '../../../src/tools/credentials.js';
import { createHttpDispatchers } from '../../../src/tools/http/index.js';
import { loadOpenApiSources } from '../../../src/tools/openapi/index.js';
import { createKeyring } from '../../../src/vault/keyring.js';
import { buildTestApp } from '../../helpers/app.js';
import { forUser } from '../../helpers/users.js';
import { callFor, connectPerson, gatewayConfig, HttpBrowser, nearExpiryOf, startFleet, vaultKey, type Fleet } from './fleet.js';

/** docs/credentials.md, "The vault": refresh once for the fleet, rotation, invalid_grant, nothing in clear, key rotation. */
describe('per-user credentials: the vault', () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await startFleet();
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
  });

  const keyring = () => createKeyring('k1', new Map([['k1', Buffer.from(fleet.env.TOOLGATE_VAULT_KEY!, 'base64')]]));
  const stored = async (user: string) => {
    const grant = await fleet.a.state.grants.getGrant('acme', user, 'corp');
    if (!grant) return null;
    return { grant, tokens: JSON.parse(keyring().open(grant.sealed, `grant\0acme\0${user}\0corp`)) as Record<string, string> };
  };

  const connect = (user: string) => connectPerson(fleet, user);
  const nearExpiry = (user: string) => nearExpiryOf(fleet, user);

  it('calls racing on two replicas past the margin refresh once at the provider, and every call succeeds as the person', async () => {
    await connect('alice');
    const before = await stored('alice');
    await nearExpiry('alice');
    const refreshes = fleet.provider.hits('/token');
    const results = await Promise.all(
      [fleet.a, fleet.b, fleet.a, fleet.b, fleet.b, fleet.a].map((gateway) => callFor(gateway, 'whoami', 'alice')),
    );
    for (const result of results) expect(JSON.parse(String(result.text))).toEqual({ user: 'alice' });
    expect(fleet.provider.hits('/token')).toBe(refreshes + 1);
    const after = (await stored('alice'))!;
    expect(after.grant.version).toBe(before!.grant.version + 1);
    expect(after.tokens.access_token).not.toBe(before!.tokens.access_token);
    // The provider rotates refresh tokens: the new one replaced the old in the same write.
    expect(after.tokens.refresh_token).not.toBe(before!.tokens.refresh_token);
    expect(after.grant.expiresAt).toBeGreaterThan(fleet.clock.now() + 3_000_000);
  }, 60_000);

  it('the rotated refresh token is the one used next; invalid_grant (the old one replayed, the grant revoked) forgets the grant', async () => {
    const current = (await stored('alice'))!;
    await nearExpiry('alice');
    const refreshes = fleet.provider.hits('/token');
    expect(JSON.parse(String((await callFor(fleet.b, 'whoami', 'alice')).text))).toEqual({ user: 'alice' });
    expect(fleet.provider.hits('/token')).toBe(refreshes + 1);
    const rotated = (await stored('alice'))!;
    expect(rotated.tokens.refresh_token).not.toBe(current.tokens.refresh_token);

    // Replaying a used refresh token makes the provider revoke the whole grant (refresh token reuse detection).
    const replay = await fetch(`${fleet.provider.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${fleet.provider.webClient.id}:${fleet.provider.webClient.secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: current.tokens.refresh_token! }).toString(),
    });
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');

    await nearExpiry('alice');
    const refused = await callFor(fleet.a, 'whoami', 'alice');
    expect(refused.error).toMatchObject({ code: 'AUTHORIZATION_REQUIRED', details: { reason: 'expired' } });
    expect(refused.error!.message).toContain('can no longer use your authorization at corp');
    expect(await fleet.a.state.grants.getGrant('acme', 'alice', 'corp')).toBeNull();
  }, 60_000);

  it('the agent retries the same call id once the person has authorized, and it runs (a refusal is not kept for replay)', async () => {
    fleet.clock.set(Date.now());
    const first = await callFor(fleet.b, 'whoami', 'henry', 'call-henry-1');
    expect(first.error?.code).toBe('AUTHORIZATION_REQUIRED');
    const person = new HttpBrowser();
    const callback = await person.authorize(String(first.error!.details!.authorization_url), 'henry', `${fleet.publicUrl}/oauth/callback`);
    expect((await person.visit(callback)).status).toBe(200);
    fleet.clock.advance(1);
    const retry = await callFor(fleet.a, 'whoami', 'henry', 'call-henry-1');
    expect(JSON.parse(String(retry.text))).toEqual({ user: 'henry' });
    // Once it ran, the id is replayed as usual.
    expect(await callFor(fleet.b, 'whoami', 'henry', 'call-henry-1')).toMatchObject({ status: 'success', replayed: true });
  }, 60_000);

  it('a token that still works is used while the provider cannot refresh it, the grant kept', async () => {
    await connect('ivy');
    const before = (await stored('ivy'))!;
    await nearExpiry('ivy');
    fleet.provider.setDown(true);
    try {
      const answer = await callFor(fleet.a, 'unchecked', 'ivy');
      expect(JSON.parse(String(answer.text))).toEqual({ sha256: createHash('sha256').update(before.tokens.access_token!).digest('hex') });
    } finally {
      fleet.provider.setDown(false);
    }
    expect((await stored('ivy'))!.grant.version).toBe(before.grant.version);
    // Past its expiry, with the provider still down, the call says the provider is unavailable and the grant is kept.
    fleet.clock.set(before.grant.expiresAt! + 1);
    fleet.provider.setDown(true);
    try {
      const late = await callFor(fleet.b, 'unchecked', 'ivy');
      expect(late.error).toMatchObject({
        code: 'UPSTREAM_ERROR',
        retryable: true,
        details: { provider: 'corp', reason: 'provider_unavailable' },
      });
    } finally {
      fleet.provider.setDown(false);
    }
    expect(await stored('ivy')).not.toBeNull();
  }, 60_000);

  it('holds no token in clear anywhere in Redis: every key read and DUMPed', async () => {
    await connect('bob');
    await callFor(fleet.a, 'whoami', 'bob');
    const secrets = new Set(fleet.api.seen.map((s) => s.token));
    const bob = (await stored('bob'))!;
    secrets.add(bob.tokens.refresh_token!);
    secrets.add(bob.tokens.access_token!);
    // A link and an authorization under way are in Redis too while they live.
    const link = String((await callFor(fleet.a, 'whoami', 'carol')).error!.details!.authorization_url);
    await new HttpBrowser().visit(link);

    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await fleet.redis.scan(cursor, 'MATCH', `{${fleet.keyPrefix}*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    expect(keys.some((key) => key.endsWith(':grants'))).toBe(true);
    expect(keys.some((key) => key.includes(':flow:'))).toBe(true);
    for (const key of keys) {
      const type = await fleet.redis.type(key);
      const values =
        type === 'hash'
          ? Object.entries(await fleet.redis.hgetall(key)).flat()
          : type === 'string'
            ? [(await fleet.redis.get(key)) ?? '']
            : [];
      const dump = (await fleet.redis.dumpBuffer(key))?.toString('latin1') ?? '';
      for (const secret of secrets) {
        expect(dump.includes(secret), `${key} DUMP`).toBe(false);
        for (const value of values) expect(value.includes(secret), key).toBe(false);
      }
    }
  }, 60_000);

  it('an OpenAPI source with auth sends the person’s token to every operation, and start-up checks it like an HTTP tool', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolgate-openapi-'));
    try {
      await writeFile(
        join(dir, 'corp.yaml'),
        'openapi: 3.0.3\ninfo: {title: corp, version: "1"}\npaths:\n  /me:\n    get:\n      operationId: corpWhoami\n      responses: {"200": {description: me}}\n',
      );
      const config = configFrom({
        ...gatewayConfig(fleet.provider, fleet.api),
        openapi_sources: [
          { name: 'corp', spec: 'corp.yaml', base_url: fleet.api.url, allow_private_network: true, auth: { provider: 'corp' } },
        ],
      });
      const dispatchers = createHttpDispatchers();
      try {
        const { tools, problems } = await loadOpenApiSources(config.openapi_sources, {
          dispatchers,
          credentials: createEnvCredentials(fleet.env),
          baseDir: dir,
        });
        expect(problems).toEqual([]);
        const gateway = await fleet.replica(fleet.env, tools);
        const asBob = await callFor(gateway, 'corpWhoami', 'bob');
        expect(JSON.parse(String(asBob.text))).toEqual({ user: 'bob' });
        expect((await callFor(gateway, 'corpWhoami', 'zoe')).error?.code).toBe('AUTHORIZATION_REQUIRED');
      } finally {
        await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('rotates the vault key: a replica with a new key still reads grants sealed under the old one, and writes under the new', async () => {
    const newKey = vaultKey();
    const rotated = await fleet.replica({
      ...fleet.env,
      TOOLGATE_VAULT_KEY: newKey,
      TOOLGATE_VAULT_KEY_ID: 'k2',
      TOOLGATE_VAULT_OLD_KEYS: `k1:${fleet.env.TOOLGATE_VAULT_KEY}`,
    });
    expect((await fleet.a.state.grants.getGrant('acme', 'bob', 'corp'))!.sealed).toMatch(/^v1\.k1\./);
    expect(JSON.parse(String((await callFor(rotated, 'whoami', 'bob')).text))).toEqual({ user: 'bob' });
    await nearExpiry('bob');
    expect(JSON.parse(String((await callFor(rotated, 'whoami', 'bob')).text))).toEqual({ user: 'bob' });
    expect((await fleet.a.state.grants.getGrant('acme', 'bob', 'corp'))!.sealed).toMatch(/^v1\.k2\./);
  }, 60_000);

  it('a grant the vault keys cannot open (its key dropped) asks the person again, and the new grant replaces it', async () => {
    await connect('erin');
    const forgetful = await fleet.replica({ ...fleet.env, TOOLGATE_VAULT_KEY: vaultKey(), TOOLGATE_VAULT_KEY_ID: 'k9' });
    const refused = await callFor(forgetful, 'whoami', 'erin');
    expect(refused.status).toBe('error');
    expect(refused.error?.code).toBe('AUTHORIZATION_REQUIRED');
    expect(refused.error?.details).toMatchObject({ reason: 'unreadable', provider: 'corp' });
    expect(refused.error?.message).toContain('vault key changed');
    // The record is kept: a replica that still has the key reads it.
    expect(JSON.parse(String((await callFor(fleet.a, 'whoami', 'erin')).text))).toEqual({ user: 'erin' });
    // A link sealed under a key the replica opening it does not have is a link no longer: the page, not an error envelope.
    const link = new URL(String((await callFor(fleet.a, 'whoami', 'fay')).error!.details!.authorization_url)).pathname;
    const opened = await forgetful.app.inject({ method: 'GET', url: link });
    expect(opened.statusCode).toBe(404);
    expect(opened.headers['content-type']).toMatch(/^text\/html/);
    expect(opened.body).toContain('already used or has expired');
  }, 60_000);

  it('an expired link is refused, and so is a flow begun too long ago', async () => {
    const lone = await buildTestApp({ config: gatewayConfig(fleet.provider, fleet.api), env: fleet.env, builtins: false });
    try {
      const first = await callFor(lone, 'whoami', 'dana');
      const path = new URL(String(first.error!.details!.authorization_url)).pathname;
      lone.clock.advance(600_001);
      const late = await lone.app.inject({ method: 'GET', url: path });
      expect(late.statusCode).toBe(404);
      expect(late.body).toContain('already used or has expired');
      const second = await callFor(lone, 'whoami', 'dana');
      const begun = await lone.app.inject({ method: 'GET', url: new URL(String(second.error!.details!.authorization_url)).pathname });
      expect(begun.statusCode).toBe(302);
      const state = new URL(String(begun.headers.location)).searchParams.get('state')!;
      const cookie = String(begun.headers['set-cookie']).split(';')[0]!;
      lone.clock.advance(600_001);
      const callback = await lone.app.inject({ method: 'GET', url: `/oauth/callback?state=${state}&code=x`, headers: { cookie } });
      expect(callback.statusCode).toBe(400);
      expect(callback.body).toContain('unknown, was already finished, or has expired');
    } finally {
      await lone.close();
    }
  });

  it('a tool needing more scopes than the grant holds asks the person again', async () => {
    const app = await buildTestApp({
      config: {
        ...gatewayConfig(fleet.provider, fleet.api),
        tools: [
          {
            name: 'wider',
            description: 'Needs more.',
            parameters: { type: 'object' },
            http: { method: 'GET', url: `${fleet.api.url}/me`, allow_private_network: true },
            auth: { provider: 'corp', scopes: ['profile'] },
          },
        ],
      },
      env: fleet.env,
      builtins: false,
      state: fleet.a.state,
      clock: fleet.clock,
    });
    try {
      const answer = await app.app.inject({
        method: 'POST',
        url: '/execute',
        headers: forUser('bob'),
        payload: [{ id: 'w1', name: 'wider', arguments: {} }],
      });
      expect(answer.json().results[0].error).toMatchObject({ code: 'AUTHORIZATION_REQUIRED', details: { reason: 'scopes' } });
    } finally {
      await app.close();
    }
  });
});
