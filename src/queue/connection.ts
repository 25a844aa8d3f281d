import type { Config } from '../config/schema.js';
import { openRedis, reconnectDelay, RedisKeys, redisTopology, type RedisClient, type RedisTopology } from '../state/redis/index.js';

export interface QueueConnectionOptions {
  topology: RedisTopology;
  prefix: string;
  connectTimeoutMs: number;
}

export function queueConnectionOptions(config: Pick<Config, 'state'>): QueueConnectionOptions | undefined {
  const topology = redisTopology(config.state);
  if (topology === undefined) return undefined;
  return { topology, prefix: new RedisKeys(config.state.key_prefix).queuePrefix(), connectTimeoutMs: config.state.connect_timeout_ms };
}

/**
 * BullMQ's own connection, apart from the state store's: `maxRetriesPerRequest: null` so blocking commands and lock
 * renewals ride out a failover. `failFast` (the submitting side) refuses commands while disconnected.
 */
export function queueConnection(options: QueueConnectionOptions, failFast = false): RedisClient {
  const client = openRedis(options.topology, {
    maxRetriesPerRequest: null,
    connectTimeout: options.connectTimeoutMs,
    enableOfflineQueue: !failFast,
    retryStrategy: reconnectDelay,
  });
  // ioredis reports every failed attempt as an 'error' event; without a listener Node would throw it.
  client.on('error', () => undefined);
  return client;
}
