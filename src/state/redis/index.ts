export { createRedisStateStore, RedisStateStore, type RedisStateStoreOptions } from './store.js';
export { RedisKeys } from './keys.js';
