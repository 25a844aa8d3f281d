import type { GrantEntry, GrantStore, OnceKind, StoredGrant } from '../grants.js';
import type { RedisConnection } from './connection.js';
import type { RedisKeys } from './keys.js';
import type { ScriptName } from './scripts.js';
import type { RedisClient } from './topology.js';

interface GrantsContext {
  client: RedisClient;
  connection: RedisConnection;
  keys: RedisKeys;
  run(name: ScriptName, keys: string[], args: (string | number)[]): Promise<unknown>;
}

/** A stored field back to a grant; anything unreadable is no grant. */
function parse(json: string | null | undefined): StoredGrant | null {
  if (!json) return null;
  try {
    const grant = JSON.parse(json) as StoredGrant;
    // An empty Lua table encodes as {}: scopes always come back a list.
    return { ...grant, scopes: Array.isArray(grant.scopes) ? grant.scopes : [] };
  } catch {
    return null;
  }
}

/** Grants in the tenant's hash (one field per user and provider), leases and flow records as keys with a TTL (keys.ts). */
export class RedisGrants implements GrantStore {
  constructor(private readonly ctx: GrantsContext) {}

  async getGrant(tenant: string, user: string, provider: string): Promise<StoredGrant | null> {
    const { client, connection, keys } = this.ctx;
    return parse(await connection.run(() => client.hget(keys.grants(tenant), keys.grantField(user, provider))));
  }

  async putGrant(
    tenant: string,
    user: string,
    provider: string,
    grant: Omit<StoredGrant, 'version'>,
    expectedVersion?: number,
  ): Promise<number | null> {
    const { keys } = this.ctx;
    const written = Number(
      await this.ctx.run(
        'grant-put',
        [keys.grants(tenant)],
        [keys.grantField(user, provider), JSON.stringify(grant), expectedVersion === undefined ? '' : expectedVersion],
      ),
    );
    return written < 0 ? null : written;
  }

  async deleteGrant(tenant: string, user: string, provider: string): Promise<StoredGrant | null> {
    const { client, connection, keys } = this.ctx;
    const field = keys.grantField(user, provider);
    const [[, json], [, removed]] = (await connection.run(() =>
      client.multi().hget(keys.grants(tenant), field).hdel(keys.grants(tenant), field).exec(),
    )) as [[unknown, string | null], [unknown, number]];
    return removed === 1 ? parse(json) : null;
  }

  async listGrants(tenant: string, user?: string): Promise<GrantEntry[]> {
    const { client, connection, keys } = this.ctx;
    const all = await connection.run(() => client.hgetall(keys.grants(tenant)));
    return Object.entries(all).flatMap(([field, json]) => {
      const [who, provider] = field.split(':').map(decodeURIComponent);
      const grant = parse(json);
      if (who === undefined || provider === undefined || !grant || (user !== undefined && who !== user)) return [];
      return [{ user: who, provider, grant }];
    });
  }

  async leaseRefresh(tenant: string, user: string, provider: string, holder: string, leaseMs: number): Promise<boolean> {
    const { client, connection, keys } = this.ctx;
    const answer = await connection.run(() => client.set(keys.grantRefresh(tenant, user, provider), holder, 'PX', leaseMs, 'NX'));
    return answer === 'OK';
  }

  async endRefresh(tenant: string, user: string, provider: string, holder: string): Promise<void> {
    await this.ctx.run('grant-unlease', [this.ctx.keys.grantRefresh(tenant, user, provider)], [holder]);
  }

  async pendingLink(target: string, now: number): Promise<{ id: string; expiresAt: number } | null> {
    const { client, connection, keys } = this.ctx;
    const pointer = await connection.run(() => client.get(keys.once('link-for', target)));
    const [id, expiresAt] = (pointer ?? '').split(' ');
    if (!id || !(Number(expiresAt) > now)) return null;
    const alive = await connection.run(() => client.exists(keys.once('link', id)));
    return alive === 1 ? { id, expiresAt: Number(expiresAt) } : null;
  }

  async putLink(tenant: string, target: string, id: string, value: string, ttlMs: number, max: number, now: number): Promise<boolean> {
    const { keys } = this.ctx;
    const written = await this.ctx.run(
      'link-put',
      [keys.once('links', tenant), keys.once('link', id), keys.once('link-for', target)],
      [now, ttlMs, max, value, `${id} ${now + ttlMs}`, id],
    );
    return Number(written) === 1;
  }

  async putOnce(kind: OnceKind, id: string, value: string, ttlMs: number): Promise<void> {
    const { client, connection, keys } = this.ctx;
    await connection.run(() => client.set(keys.once(kind, id), value, 'PX', ttlMs));
  }

  async takeOnce(kind: OnceKind, id: string): Promise<string | null> {
    const { client, connection, keys } = this.ctx;
    return connection.run(() => client.getdel(keys.once(kind, id)));
  }
}
