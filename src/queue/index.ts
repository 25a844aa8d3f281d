export { callbackUrlProblem } from './callbacks.js';
export { queueConnectionOptions, type QueueConnectionOptions } from './connection.js';
export { ExecutionQueue } from './executions.js';
export { jobOf, newExecutionId, type ExecutionBody } from './job.js';
export { registerQueueDepth } from './metrics.js';
export { createWebhookOutbox, QueuedWebhookOutbox } from './webhooks.js';
export { startWorkers, type ExecutionWorkers, type WorkerDeps } from './worker.js';
