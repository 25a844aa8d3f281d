export { deliverOnce, type DeliveryDeps } from './deliver.js';
export { MemoryWebhookOutbox } from './memory.js';
export type { RetryPolicy, WebhookDelivery, WebhookOutbox } from './outbox.js';
export { postSigned } from './post.js';
export { signature } from './signature.js';
export { targetProblem } from './target.js';
