import { randomUUID } from 'node:crypto';
import { afterAll, inject } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { queueConnectionOptions, QueuedWebhookOutbox } from '../../../src/queue/index.js';
import { createTestDispatchers } from '../http-tools/helpers.js';
import { describeWebhookOutbox } from '../../suites/webhook-outbox.suite.js';

const dispatchers = createTestDispatchers();
afterAll(() => Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]));

describeWebhookOutbox(
  'Redis (BullMQ jobs)',
  async (deps) => {
    const connection = queueConnectionOptions(configFrom({ state: { redis_url: inject('redisUrl'), key_prefix: `wh-${randomUUID()}` } }))!;
    return new QueuedWebhookOutbox(connection, deps, { deliver: true });
  },
  () => dispatchers,
);
