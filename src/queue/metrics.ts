import type { Queue } from 'bullmq';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface QueueMetrics {
  jobDuration: Histogram<'outcome'>;
  callbackDeliveries: Counter<'outcome'>;
}

/** A closed set, so each series exists from the start. */
const CALLBACK_OUTCOMES = ['delivered', 'http_error', 'network_error', 'refused'] as const;

const STATES = ['waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed'] as const;

const byRegistry = new WeakMap<Registry, QueueMetrics>();

export function queueMetrics(registry: Registry): QueueMetrics {
  let metrics = byRegistry.get(registry);
  if (!metrics) {
    metrics = {
      jobDuration: new Histogram({
        name: 'toolgate_async_job_duration_seconds',
        help: 'Time a worker spent running one async batch, by outcome (completed, failed).',
        labelNames: ['outcome'],
        buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 30, 60, 300, 900],
        registers: [registry],
      }),
      callbackDeliveries: new Counter({
        name: 'toolgate_async_callback_deliveries_total',
        help: 'Callback delivery attempts by outcome: delivered, http_error, network_error, refused.',
        labelNames: ['outcome'],
        registers: [registry],
      }),
    };
    // At 0 before the first attempt: rate() reads a series from its second sample on.
    for (const outcome of CALLBACK_OUTCOMES) metrics.callbackDeliveries.inc({ outcome }, 0);
    byRegistry.set(registry, metrics);
  }
  return metrics;
}

/** Read from Redis at scrape time (the fleet's queue); empty for a scrape while Redis is away. */
export function registerQueueDepth(registry: Registry, queue: Queue): void {
  new Gauge({
    name: 'toolgate_async_jobs',
    help: 'Async executions in the queue by BullMQ state (finished ones until their retention passes).',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const counts = await queue.getJobCounts(...STATES);
        for (const state of STATES) this.set({ state }, counts[state] ?? 0);
      } catch {
        // The gauge stays empty for this scrape; /readyz reports the store.
      }
    },
  });
}
