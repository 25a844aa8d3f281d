import type { Config } from '../config/schema.js';
import { openRedis, reconnectDelay, RedisKeys, redisTopology, type RedisClient, type RedisTopology } from '../state/redis/index.js';

/** Where BullMQ keeps a deployment's queues: the state store's Redis (whatever its topology), under its prefix. */
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
 * A connection of BullMQ's own, apart from the state store's (whose
 * commands fail fast and are never resent): BullMQ needs
 * `maxRetriesPerRequest: null`, so that a worker's blocking commands and lock
 * renewals ride out a reconnect or a failover instead of failing. `failFast`
 * (the submitting side) refuses commands while disconnected rather than
 * queueing them behind a request that is waiting for an answer.
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
