import { afterAll } from 'vitest';
import { MemoryWebhookOutbox } from '../../../src/webhooks/index.js';
import { createTestDispatchers } from '../http-tools/helpers.js';
import { describeWebhookOutbox } from '../../suites/webhook-outbox.suite.js';

const dispatchers = createTestDispatchers();
afterAll(() => Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]));

describeWebhookOutbox(
  'memory (in process)',
  async (deps) => new MemoryWebhookOutbox(deps),
  () => dispatchers,
);
