export interface WebhookDelivery {
  /** A delivery already queued under it is not queued twice. */
  id: string;
  url: string;
  body: string;
  headers: Record<string, string>;
}

/** `send` returns at once and never throws: a bad receiver delays nothing but its own deliveries. */
export interface WebhookOutbox {
  send(delivery: WebhookDelivery): void;
  close(): Promise<void>;
}

export interface RetryPolicy {
  retries: number;
  backoffMs: number;
  timeoutMs: number;
}
