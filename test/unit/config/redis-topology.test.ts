import { describe, expect, it } from 'vitest';
import { ConfigError, configFrom, loadConfig } from '../../../src/config/load.js';
import { redisTopology } from '../../../src/state/redis/index.js';

/** The problems start-up refuses with; fails the test when it accepts. */
function problemsOf(env: NodeJS.ProcessEnv, state?: Record<string, unknown>): string[] {
  try {
    if (state) configFrom({ state }, env);
    else loadConfig(env, undefined);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('the configuration was accepted');
}

/** One node, Sentinel or Cluster, from the config file or the environment. */
describe('the Redis topology', () => {
  it('is one node with REDIS_URL, none without any Redis setting', () => {
    expect(redisTopology(loadConfig({ REDIS_URL: 'rediss://u:p@cache:6380/2' }, undefined).state)).toEqual({
      kind: 'single',
      url: 'rediss://u:p@cache:6380/2',
    });
    expect(redisTopology(loadConfig({}, undefined).state)).toBeUndefined();
  });

  it('is Sentinel with REDIS_SENTINELS and REDIS_SENTINEL_NAME, IPv6 in brackets, passwords and TLS from the environment', () => {
    const state = loadConfig(
      {
        REDIS_SENTINELS: 'sentinel-a:26379, 10.0.0.2:26380,[fd00::3]:26381',
        REDIS_SENTINEL_NAME: 'toolgate-main',
        REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
        REDIS_PASSWORD: 'node-secret',
        REDIS_TLS: 'true',
      },
      undefined,
    ).state;
    expect(redisTopology(state)).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 'sentinel-a', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
        { host: 'fd00::3', port: 26381 },
      ],
      name: 'toolgate-main',
      sentinelPassword: 'sentinel-secret',
      password: 'node-secret',
      tls: true,
    });
  });

  it('is a Cluster with REDIS_CLUSTER_NODES, or state.cluster_nodes in the file with an ACL user', () => {
    expect(redisTopology(loadConfig({ REDIS_CLUSTER_NODES: 'node-1:7000,node-2:7001' }, undefined).state)).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'node-1', port: 7000 },
        { host: 'node-2', port: 7001 },
      ],
      tls: false,
    });
    const state = configFrom({
      state: { cluster_nodes: [{ host: 'node-1', port: 7000 }], username: 'toolgate', password: 'pw', tls: true },
    }).state;
    expect(redisTopology(state)).toEqual({
      kind: 'cluster',
      nodes: [{ host: 'node-1', port: 7000 }],
      username: 'toolgate',
      password: 'pw',
      tls: true,
    });
  });

  it('refuses two topologies at once, naming both', () => {
    expect(problemsOf({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000' })).toEqual([
      'state: redis_url (REDIS_URL) and cluster_nodes (REDIS_CLUSTER_NODES) are all set; give exactly one of redis_url (one node), sentinels (Sentinel) or cluster_nodes (Cluster)',
    ]);
  });

  it('refuses Sentinel without the name of its primary, and Sentinel settings without sentinels', () => {
    expect(problemsOf({ REDIS_SENTINELS: '127.0.0.1:26379' })).toEqual([
      'state.name: Sentinel needs the name of the primary its sentinels monitor (REDIS_SENTINEL_NAME), as in their `sentinel monitor <name> …` line',
    ]);
    expect(problemsOf({ REDIS_CLUSTER_NODES: '127.0.0.1:7000', REDIS_SENTINEL_NAME: 'main', REDIS_SENTINEL_PASSWORD: 'x' })).toEqual([
      'state.name: applies only to Sentinel; set state.sentinels (REDIS_SENTINELS) or remove it',
      'state.sentinel_password: applies only to Sentinel; set state.sentinels (REDIS_SENTINELS) or remove it',
    ]);
  });

  it('refuses node credentials and TLS beside a URL, which carries its own, and without any Redis', () => {
    expect(problemsOf({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PASSWORD: 'x', REDIS_TLS: '1' })).toEqual([
      'state: password, tls apply only to Sentinel and Cluster; a single node takes them in its URL: rediss://user:password@host:port',
    ]);
    expect(problemsOf({}, { username: 'u' })).toEqual(['state: username apply only to Sentinel and Cluster; there is no Redis configured']);
  });

  it('lists the Redis problems together with those of other settings, in one error', () => {
    expect(problemsOf({ PORT: 'eighty', LOG_LEVEL: 'loud', REDIS_SENTINELS: '127.0.0.1:26379' })).toEqual([
      'PORT: must be a whole number, got "eighty"',
      'log_level: must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent"',
      'state.name: Sentinel needs the name of the primary its sentinels monitor (REDIS_SENTINEL_NAME), as in their `sentinel monitor <name> …` line',
    ]);
    expect(problemsOf({ PORT: 'eighty', REDIS_CLUSTER_NODES: 'node-2', REDIS_SENTINEL_NAME: 'main' })).toEqual([
      'PORT: must be a whole number, got "eighty"',
      'REDIS_CLUSTER_NODES: must be host:port,host:port,… (IPv6 as [::1]:6379), got "node-2"',
      'state.name: applies only to Sentinel; set state.sentinels (REDIS_SENTINELS) or remove it',
    ]);
  });

  it('refuses a malformed node list, a bad port, an empty list and a bad REDIS_TLS, each with what it takes', () => {
    expect(problemsOf({ REDIS_CLUSTER_NODES: '127.0.0.1:7000,node-2' })).toEqual([
      'REDIS_CLUSTER_NODES: must be host:port,host:port,… (IPv6 as [::1]:6379), got "node-2"',
    ]);
    expect(problemsOf({ REDIS_SENTINELS: 'fd00::1:26379', REDIS_SENTINEL_NAME: 'main' })).toEqual([
      'REDIS_SENTINELS: must be host:port,host:port,… (IPv6 as [::1]:6379), got "fd00::1:26379"',
      'state.name: applies only to Sentinel; set state.sentinels (REDIS_SENTINELS) or remove it',
    ]);
    expect(problemsOf({ REDIS_CLUSTER_NODES: '127.0.0.1:70000' })).toEqual(['state.cluster_nodes.0.port: must be <= 65535']);
    expect(problemsOf({}, { cluster_nodes: [] })).toEqual(['state.cluster_nodes: must NOT have fewer than 1 items']);
    expect(problemsOf({}, { sentinels: [{ host: 'a b', port: 1 }], name: 'main' })).toEqual([
      expect.stringMatching(/^state\.sentinels\.0\.host: must match pattern/),
    ]);
    expect(problemsOf({ REDIS_TLS: 'yes', REDIS_CLUSTER_NODES: '127.0.0.1:7000' })).toEqual([
      'REDIS_TLS: must be true or false (or 1 or 0), got "yes"',
    ]);
  });
});
