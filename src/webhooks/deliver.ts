import type { FastifyBaseLogger } from 'fastify';
import type { Counter } from 'prom-client';
import type { HttpDispatchers } from '../tools/http/index.js';
import type { RetryPolicy, WebhookDelivery } from './outbox.js';
import { postSigned, type PostOutcome } from './post.js';

export interface DeliveryDeps {
  secret: string;
  allowPrivateNetwork: boolean;
  dispatchers: HttpDispatchers;
  retry: RetryPolicy;
  deliveries: Counter<'outcome'>;
  logger: FastifyBaseLogger;
}

/** The caller retries what is neither delivered nor refused. */
export async function deliverOnce(delivery: WebhookDelivery, attempt: number, deps: DeliveryDeps): Promise<PostOutcome> {
  const outcome = await postSigned({
    url: delivery.url,
    body: delivery.body,
    secret: deps.secret,
    headers: { ...delivery.headers, 'x-toolgate-delivery': String(attempt) },
    dispatcher: deps.allowPrivateNetwork ? deps.dispatchers.open : deps.dispatchers.guarded,
    timeoutMs: deps.retry.timeoutMs,
  });
  deps.deliveries.inc({ outcome: outcome.outcome });
  const log = deps.logger.child({ webhook_delivery: delivery.id, delivery: attempt });
  if (outcome.outcome === 'delivered') log.info({ status: outcome.status }, 'webhook delivered');
  else if (outcome.outcome === 'refused') log.warn({ err: outcome.error }, 'webhook refused by the SSRF guard; not retried');
  else log.warn(outcome.outcome === 'http_error' ? { status: outcome.status } : { err: outcome.error }, 'webhook delivery failed');
  return outcome;
}

export function retryDelay(policy: RetryPolicy, next: number): number {
  return policy.backoffMs * 2 ** (next - 2);
}
