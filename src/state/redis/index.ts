export { createRedisStateStore, RedisStateStore } from './store.js';
export { RedisKeys } from './keys.js';
export { openRedis, reconnectDelay, redisTopology, type RedisClient, type RedisNode, type RedisTopology } from './topology.js';
