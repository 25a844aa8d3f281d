import type { DeliveryDeps } from './deliver.js';
import { deliverOnce, retryDelay } from './deliver.js';
import type { WebhookDelivery, WebhookOutbox } from './outbox.js';

/** Past it a new event is dropped (counted), so a dead receiver cannot grow memory. */
const MEMORY_OUTBOX_MAX = 1000;

/** Without Redis: retried from this process, on timers, and lost with it, as its approvals are. */
export class MemoryWebhookOutbox implements WebhookOutbox {
  private readonly waiting = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly deps: DeliveryDeps) {}

  send(delivery: WebhookDelivery): void {
    if (this.closed || this.waiting.has(delivery.id)) return;
    if (this.waiting.size >= MEMORY_OUTBOX_MAX) {
      this.deps.deliveries.inc({ outcome: 'dropped' });
      this.deps.logger.error({ webhook_delivery: delivery.id, waiting: this.waiting.size }, 'webhook dropped: too many deliveries waiting');
      return;
    }
    this.waiting.add(delivery.id);
    this.later(delivery, 1, 0);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.waiting.size > 0) this.deps.logger.warn({ waiting: this.waiting.size }, 'webhook deliveries dropped at shutdown');
  }

  private later(delivery: WebhookDelivery, attempt: number, delayMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(delivery, attempt);
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  private async attempt(delivery: WebhookDelivery, attempt: number): Promise<void> {
    if (this.closed) return;
    const { outcome } = await deliverOnce(delivery, attempt, this.deps);
    if (outcome === 'delivered' || outcome === 'refused' || attempt > this.deps.retry.retries) {
      this.waiting.delete(delivery.id);
      if (outcome !== 'delivered') this.deps.logger.error({ webhook_delivery: delivery.id, deliveries: attempt }, 'webhook abandoned');
      return;
    }
    this.later(delivery, attempt + 1, retryDelay(this.deps.retry, attempt + 1));
  }
}
