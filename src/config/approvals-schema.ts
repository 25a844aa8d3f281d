import { Type } from 'typebox';

/** `approvals`: who is told of approval requests, and how long decided ones are kept (docs/policy.md). */
export const ApprovalsSchema = Type.Object(
  {
    webhook_url: Type.Optional(
      Type.String({ minLength: 1, description: 'Where approval.created and approval.decided events are POSTed, signed.' }),
    ),
    webhook_secret: Type.Optional(
      Type.String({ minLength: 1, description: 'HMAC key of the x-toolgate-signature header; ${VAR} reads it from the environment.' }),
    ),
    webhook_allow_private_network: Type.Boolean({ default: false, description: 'Let the webhook reach loopback and private addresses.' }),
    webhook_retries: Type.Integer({
      minimum: 0,
      maximum: 20,
      default: 5,
      description: 'Retries of a failed delivery after the first attempt.',
    }),
    webhook_backoff_ms: Type.Integer({
      minimum: 1,
      default: 1_000,
      description: 'Delay before the first retry; doubled for each next one.',
    }),
    webhook_timeout_ms: Type.Integer({ minimum: 1, default: 10_000, description: 'Each attempt must be answered within it.' }),
    history_ms: Type.Integer({
      minimum: 1,
      default: 604_800_000,
      description: 'How long a decided request is kept for GET /approvals?status=decided and GET /approvals/{id}.',
    }),
    max_pending_per_tenant: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 1_000,
      description: 'Pending requests a tenant may have at once; past it a call that asks answers APPROVAL_LIMIT (retryable).',
    }),
    history_count: Type.Integer({
      minimum: 1,
      maximum: 100_000,
      default: 200,
      description: 'Decided requests kept per tenant at most; the oldest go first.',
    }),
  },
  { additionalProperties: false, default: {} },
);
