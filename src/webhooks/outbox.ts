/** One event to POST to a webhook, signed, until it is delivered or its retries run out. */
export interface WebhookDelivery {
  /** Unique per event: a delivery already queued under it is not queued twice. */
  id: string;
  url: string;
  body: string;
  /** Headers besides the signature and the attempt number. */
  headers: Record<string, string>;
}

/**
 * Where events wait for delivery. `send` returns at once and never throws:
 * a receiver that is slow, failing or gone delays nothing but its own
 * deliveries (docs/policy.md, "Webhooks" says how each outbox keeps them).
 */
export interface WebhookOutbox {
  send(delivery: WebhookDelivery): void;
  /** Stops delivering; what is still waiting is kept (Redis) or dropped with a log line (memory). */
  close(): Promise<void>;
}

/** How deliveries are retried: `retries` more attempts after the first, the first after `backoffMs`, each next one twice as late. */
export interface RetryPolicy {
  retries: number;
  backoffMs: number;
  timeoutMs: number;
}
