import { hostname } from 'node:os';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import { webhookRetries } from '../approvals/index.js';
import type { Config } from '../config/schema.js';
import type { Metrics } from '../observability/metrics.js';
import type { RedisClient } from '../state/redis/index.js';
import type { HttpDispatchers } from '../tools/http/index.js';
import { deliverOnce, MemoryWebhookOutbox, type DeliveryDeps, type WebhookDelivery, type WebhookOutbox } from '../webhooks/index.js';
import { queueConnection, type QueueConnectionOptions } from './connection.js';

const WEBHOOKS_QUEUE = 'webhooks';

/** Deliveries are waits on another host, not work. */
const WEBHOOK_CONCURRENCY = 8;

const KEEP_FAILED = 1000;

/**
 * Each event a BullMQ job with exponential backoff, so a delivery outlives the process that queued it. Servers deliver;
 * a `toolgate worker` only queues. An event that cannot be queued (Redis away) is delivered from this process.
 */
export class QueuedWebhookOutbox implements WebhookOutbox {
  private readonly connections: RedisClient[] = [];
  private readonly queue: Queue<WebhookDelivery>;
  private readonly worker: Worker<WebhookDelivery> | undefined;
  private readonly fallback: MemoryWebhookOutbox;

  constructor(
    connection: QueueConnectionOptions,
    private readonly deps: DeliveryDeps,
    options: { deliver: boolean },
  ) {
    const connect = (failFast: boolean) => {
      const client = queueConnection(connection, failFast);
      this.connections.push(client);
      return client;
    };
    this.fallback = new MemoryWebhookOutbox(deps);
    this.queue = new Queue<WebhookDelivery>(WEBHOOKS_QUEUE, { connection: connect(true), prefix: connection.prefix });
    this.queue.on('error', (err) => deps.logger.warn({ err }, 'webhook queue error'));
    if (!options.deliver) return;
    this.worker = new Worker<WebhookDelivery>(
      WEBHOOKS_QUEUE,
      async (job) => {
        const { outcome } = await deliverOnce(job.data, job.attemptsMade + 1, deps);
        if (outcome === 'refused') throw new UnrecoverableError('the webhook target is not a public address');
        if (outcome !== 'delivered') throw new Error(`webhook delivery failed: ${outcome}`);
      },
      { connection: connect(false), prefix: connection.prefix, concurrency: WEBHOOK_CONCURRENCY, name: `${hostname()}:${process.pid}` },
    );
    this.worker.on('error', (err) => deps.logger.warn({ err }, 'webhook worker error'));
    this.worker.on('failed', (job, err) => {
      if (job && (err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1))) {
        deps.logger.error({ webhook_delivery: job.data.id, deliveries: job.attemptsMade }, 'webhook abandoned');
      }
    });
  }

  send(delivery: WebhookDelivery): void {
    const { retries, backoffMs } = this.deps.retry;
    this.queue
      .add('deliver', delivery, {
        jobId: delivery.id,
        attempts: retries + 1,
        backoff: { type: 'exponential', delay: backoffMs },
        removeOnComplete: true,
        removeOnFail: KEEP_FAILED,
      })
      .catch((err: unknown) => {
        this.deps.logger.warn(
          { err, webhook_delivery: delivery.id },
          'webhook not queued (Redis unreachable): delivering it from this process',
        );
        this.fallback.send(delivery);
      });
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
    await this.fallback.close();
    await Promise.all(this.connections.map((c) => c.quit().catch(() => c.disconnect())));
  }
}

interface OutboxParts {
  connection: QueueConnectionOptions | undefined;
  dispatchers: HttpDispatchers;
  metrics: Metrics;
  logger: FastifyBaseLogger;
  deliver: boolean;
}

export function createWebhookOutbox(config: Pick<Config, 'approvals'>, parts: OutboxParts): WebhookOutbox | undefined {
  const settings = config.approvals;
  if (settings.webhook_url === undefined || settings.webhook_secret === undefined) return undefined;
  const deps: DeliveryDeps = {
    secret: settings.webhook_secret,
    allowPrivateNetwork: settings.webhook_allow_private_network,
    dispatchers: parts.dispatchers,
    retry: webhookRetries(settings),
    deliveries: parts.metrics.webhookDeliveries,
    logger: parts.logger,
  };
  return parts.connection ? new QueuedWebhookOutbox(parts.connection, deps, { deliver: parts.deliver }) : new MemoryWebhookOutbox(deps);
}
