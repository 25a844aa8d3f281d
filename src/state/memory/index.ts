export { createMemoryStateStore, MemoryStateStore, type MemoryStateStoreOptions } from './store.js';
