import type { Config } from '../config/schema.js';
import type { ApprovalRecord } from '../protocol/approval.js';
import { targetProblem, type RetryPolicy, type WebhookOutbox } from '../webhooks/index.js';

type ApprovalEvent = 'approval.created' | 'approval.decided';

/** Neither waits for the webhook nor can fail because of it. */
export interface ApprovalEvents {
  created(record: ApprovalRecord): void;
  decided(record: ApprovalRecord): void;
}

/** A receiver deduplicates on `x-toolgate-event` and `x-toolgate-approval-id` together. */
export function approvalEvents(outbox: WebhookOutbox, url: string): ApprovalEvents {
  const send = (event: ApprovalEvent, approval: ApprovalRecord) =>
    outbox.send({
      id: `${event}.${approval.id}`,
      url,
      body: JSON.stringify({ event, approval }),
      headers: { 'x-toolgate-event': event, 'x-toolgate-approval-id': approval.id },
    });
  return { created: (record) => send('approval.created', record), decided: (record) => send('approval.decided', record) };
}

export function webhookUrlProblem(settings: Config['approvals']): string | undefined {
  if (settings.webhook_url === undefined) return undefined;
  return targetProblem(
    settings.webhook_url,
    settings.webhook_allow_private_network,
    'approvals.webhook_url',
    'approvals.webhook_allow_private_network',
  );
}

export function webhookRetries(settings: Config['approvals']): RetryPolicy {
  return { retries: settings.webhook_retries, backoffMs: settings.webhook_backoff_ms, timeoutMs: settings.webhook_timeout_ms };
}
