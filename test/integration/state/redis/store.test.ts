import { inject } from 'vitest';
import { ManualClock } from '../../../../src/shared/clock.js';
import { createRedisStateStore } from '../../../../src/state/redis/index.js';
import { describeStateStore } from '../../../suites/state-store.suite.js';
import { newPrefix } from './store-requests.js';

/** The shared state-store suite on the Redis store; the Redis-only behaviour is in the other files beside this one. */

const url = inject('redisUrl');

describeStateStore('redis', async () => {
  const clock = new ManualClock();
  const store = createRedisStateStore({ url, keyPrefix: newPrefix(), clock });
  return { store, clock, cleanup: () => store.close() };
});
