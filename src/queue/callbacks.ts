import { UnrecoverableError, type Job } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/schema.js';
import type { HttpDispatchers } from '../tools/http/index.js';
import { postSigned, targetProblem } from '../webhooks/index.js';
import type { QueueMetrics } from './metrics.js';

export interface CallbackJob {
  execution_id: string;
  url: string;
  body: string;
}

export function callbackUrlProblem(url: string, allowPrivateNetwork: boolean): string | undefined {
  return targetProblem(url, allowPrivateNetwork, 'callback_url', 'async.callback_allow_private_network');
}

/** The first attempt and `callback_retries` more, each delay doubled. */
export function callbackAttempts(config: Config['async']) {
  return { attempts: config.callback_retries + 1, backoff: { type: 'exponential', delay: config.callback_backoff_ms } };
}

interface CallbackDeps {
  config: Config['async'];
  dispatchers: HttpDispatchers;
  metrics: QueueMetrics;
  logger: FastifyBaseLogger;
}

/** One attempt (BullMQ retries a thrown one); an SSRF refusal or no secret to sign with is final. */
export async function deliverCallback(job: Job<CallbackJob>, deps: CallbackDeps): Promise<void> {
  const { execution_id: id, url, body } = job.data;
  const attempt = job.attemptsMade + 1;
  const log = deps.logger.child({ execution_id: id, delivery: attempt });
  const secret = deps.config.callback_secret;
  if (secret === undefined) {
    deps.metrics.callbackDeliveries.inc({ outcome: 'refused' });
    throw new UnrecoverableError('async.callback_secret is not set on this worker');
  }
  const outcome = await postSigned({
    url,
    body,
    secret,
    headers: { 'x-toolgate-execution-id': id, 'x-toolgate-delivery': String(attempt) },
    dispatcher: deps.config.callback_allow_private_network ? deps.dispatchers.open : deps.dispatchers.guarded,
    timeoutMs: deps.config.callback_timeout_ms,
  });
  deps.metrics.callbackDeliveries.inc({ outcome: outcome.outcome });
  switch (outcome.outcome) {
    case 'refused':
      log.warn({ err: outcome.error }, 'callback refused by the SSRF guard; not retried');
      throw new UnrecoverableError('the callback target is not a public address');
    case 'network_error':
      log.warn({ err: outcome.error }, 'callback delivery failed');
      throw new Error(outcome.error);
    case 'http_error':
      log.warn({ status: outcome.status }, 'callback receiver answered with an error');
      throw new Error(`the callback receiver answered ${outcome.status}`);
    case 'delivered':
      log.info({ status: outcome.status }, 'callback delivered');
  }
}
