export { callbackUrlProblem } from './callbacks.js';
export { queueConnectionOptions, type QueueConnectionOptions } from './connection.js';
export { ExecutionQueue } from './executions.js';
export { jobOf, newExecutionId } from './job.js';
export { registerQueueDepth } from './metrics.js';
export { createWebhookOutbox, QueuedWebhookOutbox } from './webhooks.js';
export { startWorkers, type ExecutionWorkers } from './worker.js';
