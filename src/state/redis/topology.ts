import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Config } from '../../config/schema.js';

export interface RedisNode {
  host: string;
  port: number;
}

/** Credentials and TLS of the data nodes (a single node's URL carries its own). */
interface NodeAccess {
  tls: boolean;
  username?: string;
  password?: string;
}

/** Where the shared state lives: one node, a primary found through Sentinel, or a Cluster. */
export type RedisTopology =
  | { kind: 'single'; url: string }
  | ({ kind: 'sentinel'; sentinels: RedisNode[]; name: string; sentinelPassword?: string } & NodeAccess)
  | ({ kind: 'cluster'; nodes: RedisNode[] } & NodeAccess);

export type RedisClient = Redis | Cluster;

/** The topology the `state` section names; undefined without Redis. */
export function redisTopology(state: Config['state']): RedisTopology | undefined {
  const access = {
    tls: state.tls,
    ...(state.username && { username: state.username }),
    ...(state.password && { password: state.password }),
  };
  if (state.redis_url !== undefined) return { kind: 'single', url: state.redis_url };
  if (state.sentinels !== undefined) {
    const sentinelPassword = state.sentinel_password;
    return {
      kind: 'sentinel',
      sentinels: state.sentinels,
      name: state.name ?? '',
      ...(sentinelPassword && { sentinelPassword }),
      ...access,
    };
  }
  if (state.cluster_nodes !== undefined) return { kind: 'cluster', nodes: state.cluster_nodes, ...access };
  return undefined;
}

export function reconnectDelay(attempt: number): number {
  return Math.min(50 * 2 ** attempt, 1000);
}

type NodeOptions = Omit<RedisOptions, 'sentinels' | 'name' | 'host' | 'port' | 'path'>;

/**
 * With `autoResendUnfulfilledCommands: false` a Cluster resends nothing
 * (a failed command never runs later); it still follows MOVED and ASK,
 * which run nothing.
 */
export function openRedis(topology: RedisTopology, options: NodeOptions & { retryStrategy: (attempt: number) => number }): RedisClient {
  if (topology.kind === 'single') return new Redis(topology.url, options);
  const access = {
    ...(topology.tls && { tls: {} }),
    ...(topology.username && { username: topology.username }),
    ...(topology.password && { password: topology.password }),
  };
  if (topology.kind === 'sentinel') {
    return new Redis({
      ...options,
      ...access,
      sentinels: topology.sentinels,
      name: topology.name,
      role: 'master',
      ...(topology.sentinelPassword && { sentinelPassword: topology.sentinelPassword }),
      ...(topology.tls && { enableTLSForSentinelMode: true, sentinelTLS: {} }),
      sentinelRetryStrategy: options.retryStrategy,
      // READONLY (a demoted primary; nothing ran): reconnect to the new primary, fail this command (1, not 2).
      reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 1 : false),
    });
  }
  const { retryStrategy, enableOfflineQueue, ...nodeOptions } = options;
  const cluster: ClusterOptions = {
    enableOfflineQueue,
    clusterRetryStrategy: retryStrategy,
    ...(nodeOptions.autoResendUnfulfilledCommands === false && { retryDelayOnFailover: 0, retryDelayOnClusterDown: 0 }),
    slotsRefreshTimeout: nodeOptions.connectTimeout,
    redisOptions: { ...nodeOptions, ...access },
  };
  return new Cluster(topology.nodes, cluster);
}
