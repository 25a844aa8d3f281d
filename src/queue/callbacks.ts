import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';
import { UnrecoverableError, type Job } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import { request } from 'undici';
import type { Config } from '../config/schema.js';
import { findForbidden, isForbiddenAddress, type HttpDispatchers } from '../tools/http/index.js';
import type { QueueMetrics } from './metrics.js';

/** A callback to deliver: the finished body exactly as it is signed and sent. */
export interface CallbackJob {
  execution_id: string;
  url: string;
  body: string;
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`, the `x-toolgate-signature` header. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Why a callback_url cannot be accepted, or undefined. Host names are
 * checked at every connection by the guarded pool, as HTTP tools' are; what
 * can be told from the URL alone (a literal address outside the public
 * internet, a localhost name) is refused here, before anything is queued.
 */
export function callbackUrlProblem(url: string, allowPrivateNetwork: boolean): string | undefined {
  if (allowPrivateNetwork) return undefined;
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const local = isIP(host) === 0 ? host === 'localhost' || host.endsWith('.localhost') : isForbiddenAddress(host);
  if (!local) return undefined;
  return `callback_url: ${host} is not a public address; a callback may reach loopback or private networks only with async.callback_allow_private_network`;
}

/** BullMQ's retry settings for a callback: the first attempt and `callback_retries` more, each delay doubled. */
export function callbackAttempts(config: Config['async']) {
  return { attempts: config.callback_retries + 1, backoff: { type: 'exponential', delay: config.callback_backoff_ms } };
}

export interface CallbackDeps {
  config: Config['async'];
  dispatchers: HttpDispatchers;
  metrics: QueueMetrics;
  logger: FastifyBaseLogger;
}

/**
 * One delivery attempt (BullMQ retries a thrown one). A refusal by the SSRF
 * guard, or no secret to sign with, is final: retrying cannot change it.
 */
export async function deliverCallback(job: Job<CallbackJob>, deps: CallbackDeps): Promise<void> {
  const { execution_id: id, url, body } = job.data;
  const attempt = job.attemptsMade + 1;
  const log = deps.logger.child({ execution_id: id, delivery: attempt });
  const secret = deps.config.callback_secret;
  if (secret === undefined) {
    deps.metrics.callbackDeliveries.inc({ outcome: 'refused' });
    throw new UnrecoverableError('async.callback_secret is not set on this worker');
  }
  const dispatcher = deps.config.callback_allow_private_network ? deps.dispatchers.open : deps.dispatchers.guarded;
  let status: number;
  try {
    const response = await request(url, {
      method: 'POST',
      dispatcher,
      headers: {
        'content-type': 'application/json',
        'x-toolgate-signature': signature(secret, body),
        'x-toolgate-execution-id': id,
        'x-toolgate-delivery': String(attempt),
      },
      body,
      headersTimeout: deps.config.callback_timeout_ms,
      bodyTimeout: deps.config.callback_timeout_ms,
    });
    status = response.statusCode;
    // The receiver's answer is not ours to keep; reading it frees the connection for reuse.
    await response.body.dump({ limit: 65_536 }).catch(() => undefined);
  } catch (err) {
    if (findForbidden(err)) {
      deps.metrics.callbackDeliveries.inc({ outcome: 'refused' });
      log.warn({ err: findForbidden(err)!.message }, 'callback refused by the SSRF guard; not retried');
      throw new UnrecoverableError('the callback target is not a public address');
    }
    deps.metrics.callbackDeliveries.inc({ outcome: 'network_error' });
    log.warn({ err: (err as Error).message }, 'callback delivery failed');
    throw err;
  }
  if (status < 200 || status >= 300) {
    deps.metrics.callbackDeliveries.inc({ outcome: 'http_error' });
    log.warn({ status }, 'callback receiver answered with an error');
    throw new Error(`the callback receiver answered ${status}`);
  }
  deps.metrics.callbackDeliveries.inc({ outcome: 'delivered' });
  log.info({ status }, 'callback delivered');
}
