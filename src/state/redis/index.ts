export { createRedisStateStore, RedisStateStore, type RedisStateStoreOptions } from './store.js';
