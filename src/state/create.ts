import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { Metrics } from '../observability/metrics.js';
import { createMemoryStateStore } from './memory/index.js';
import { createRedisStateStore, redisTopology } from './redis/index.js';
import type { StateStore } from './state-store.js';

/** The state store the configuration names: Redis (one node, Sentinel or Cluster), else memory (said in the log: one replica only). */
export function createStateStore(config: Pick<Config, 'state'>, log: Logger, metrics: Pick<Metrics, 'stateEvictions'>): StateStore {
  const topology = redisTopology(config.state);
  if (!topology) {
    log.warn('no REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES: state is in memory, so this process must be the only replica');
    return createMemoryStateStore({ maxBytes: config.state.memory_max_bytes, onEvict: (kind) => metrics.stateEvictions.inc({ kind }) });
  }
  return createRedisStateStore({
    topology,
    keyPrefix: config.state.key_prefix,
    connectTimeoutMs: config.state.connect_timeout_ms,
    commandTimeoutMs: config.state.command_timeout_ms,
  });
}
