export { createMemoryStateStore, MemoryStateStore } from './store.js';
