import { Redis } from 'ioredis';
import { pino } from 'pino';
import { describe, expect, inject, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { GatewayError } from '../../../src/protocol/errors.js';
import type { GrantStore } from '../../../src/state/grants.js';
import { createRedisStateStore } from '../../../src/state/redis/index.js';
import { createHttpDispatchers } from '../../../src/tools/http/index.js';
import { accessToken } from '../../../src/vault/grants.js';
import { createProviderClient } from '../../../src/vault/provider-client.js';
import { vaultSettings } from '../../../src/vault/settings.js';
import { createVault } from '../../../src/vault/vault.js';
import { OwnRedis } from '../../helpers/redis.js';
import { callFor, connectPerson, gatewayConfig, nearExpiryOf, useFleet } from './fleet.js';

/** docs/credentials.md, "The vault": a refresh raced by another replica, and a state store that stops answering. */
describe('per-user credentials: refreshing against the fleet', () => {
  const fleetOf = useFleet();

  it('a replica that wins the lease after another refreshed uses the new token: the rotated refresh token is never sent again', async () => {
    const fleet = fleetOf();
    await connectPerson(fleet, 'dora');
    await nearExpiryOf(fleet, 'dora');
    const { settings } = vaultSettings(configFrom(gatewayConfig(fleet.provider, fleet.api)), fleet.env);
    const dispatchers = createHttpDispatchers();
    try {
      const client = createProviderClient(settings!.providers[0]!, dispatchers.open);
      const owner = { tenant: 'acme', user: 'dora', provider: 'corp' };
      const deps = { store: fleet.a.state.grants, keyring: settings!.keyring, clock: fleet.clock, refreshBeforeMs: 60_000 };
      // Replica b reads the grant, then its lease request arrives only once replica a has refreshed and given the lease back.
      const b = fleet.b.state.grants;
      let read!: () => void;
      let refreshed!: () => void;
      const bRead = new Promise<void>((resolve) => (read = resolve));
      const aRefreshed = new Promise<void>((resolve) => (refreshed = resolve));
      const late = Object.create(b) as GrantStore;
      late.getGrant = async (...args) => {
        const grant = await b.getGrant(...args);
        read();
        return grant;
      };
      late.leaseRefresh = async (...args) => {
        await aRefreshed;
        return b.leaseRefresh(...args);
      };
      const refreshes = fleet.provider.hits('/token');
      const fromB = accessToken({ ...deps, store: late }, client, owner, []);
      await bRead;
      const fromA = await accessToken(deps, client, owner, []);
      refreshed();
      expect(await fromB).toBe(fromA);
      expect(fleet.provider.hits('/token')).toBe(refreshes + 1);
      // The provider revokes the whole grant when a used refresh token comes back: the next refresh proves it was not.
      await nearExpiryOf(fleet, 'dora');
      expect(JSON.parse(String((await callFor(fleet.a, 'whoami', 'dora')).text))).toEqual({ user: 'dora' });
      expect(fleet.provider.hits('/token')).toBe(refreshes + 2);
    } finally {
      await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
    }
  }, 60_000);

  it('a state store that stops answering while a grant is read answers STATE_UNAVAILABLE, retryable', async () => {
    const fleet = fleetOf();
    const redis = await OwnRedis.start(inject('redisBinary') || 'redis-server');
    const state = createRedisStateStore({
      url: redis.url,
      keyPrefix: 'down',
      clock: fleet.clock,
      connectTimeoutMs: 1_000,
      commandTimeoutMs: 500,
    });
    const { settings } = vaultSettings(configFrom(gatewayConfig(fleet.provider, fleet.api)), fleet.env);
    const dispatchers = createHttpDispatchers();
    try {
      await state.ping();
      const vault = createVault({
        settings: settings!,
        store: state.grants,
        clock: fleet.clock,
        logger: pino({ level: 'silent' }),
        dispatchers,
      });
      // Connected but silent: the grant read times out, as behind a stalled network.
      const admin = new Redis(redis.url);
      await admin.call('CLIENT', 'PAUSE', '3000', 'ALL');
      admin.disconnect();
      const refused = await vault
        .token({ tenant: 'acme', keyId: 'k', user: 'zed' }, { provider: 'corp', scopes: [] })
        .catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(GatewayError);
      expect((refused as GatewayError).toCallError()).toMatchObject({
        code: 'STATE_UNAVAILABLE',
        retryable: true,
        details: { provider: 'corp' },
      });
    } finally {
      await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
      await state.close();
      await redis.stop();
    }
  }, 60_000);
});
