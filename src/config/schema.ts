import { Type, type Static } from 'typebox';
import { ApprovalsSchema } from './approvals-schema.js';
import { AuditSchema } from './audit-schema.js';
import { OAuthLinksSchema, OAuthProviderSchema } from './credentials-schema.js';
import { KeySchema, TENANT_NAME, TOOLSET_NAME } from './keys-schema.js';
import { OAuthIssuerSchema } from './oauth-schema.js';
import {
  BuiltinsSchema,
  McpServerSchema,
  OpenApiSourceSchema,
  PositiveInt,
  RateLimitSchema,
  ToolConfigSchema,
  type BashSchema,
  type BuiltinOverrideSchema,
  type McpToolOverrideSchema,
} from './tools-schema.js';

/** A Redis node or sentinel: a host name or an IP address (IPv6 without brackets), and its port. */
const RedisNodeSchema = Type.Object(
  {
    host: Type.String({ minLength: 1, maxLength: 253, pattern: '^[^\\s/:]+$|^[0-9A-Fa-f:.]+$' }),
    port: Type.Integer({ minimum: 1, maximum: 65_535 }),
  },
  { additionalProperties: false },
);

const PolicyRuleSchema = Type.Object(
  {
    tool: Type.String({ minLength: 1, description: 'Tool name or glob.' }),
    when: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'Argument name → regular expression; every one must match.' }),
    ),
    decision: Type.Union([Type.Literal('allow'), Type.Literal('ask'), Type.Literal('deny')]),
  },
  { additionalProperties: false },
);

const SecretsSetting = Type.Union([Type.Literal('redact'), Type.Literal('off')]);

/** What leaves the gateway is scanned for credentials (docs/guardrails.md). */
const GuardrailsSchema = Type.Object(
  {
    secrets: Type.Union(SecretsSetting.anyOf, {
      default: 'redact',
      description:
        'redact: credentials in tool outputs are replaced by [REDACTED:<kind>] before anything leaves the gateway; off: outputs pass as they are.',
    }),
    secrets_allow: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        'Regular expressions (RE2) of values never redacted, e.g. the fake keys of test fixtures; any part of a value may match.',
    }),
    tools: Type.Record(Type.String({ minLength: 1 }), Type.Object({ secrets: SecretsSetting }, { additionalProperties: false }), {
      default: {},
      description:
        'Tool name or glob → its own `secrets` setting; an exact name wins over globs, and the first matching glob over later ones.',
    }),
  },
  { additionalProperties: false, default: {} },
);

export const ConfigSchema = Type.Object(
  {
    host: Type.String({ default: '127.0.0.1' }),
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
    metrics_port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    log_level: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
      { default: 'info' },
    ),
    workspace: Type.String({ minLength: 1, default: './workspace' }),
    tenants: Type.Record(
      Type.String({ pattern: TENANT_NAME }),
      Type.Object(
        {
          workspace: Type.String({
            minLength: 1,
            description: "The tenant's workspace root instead of <workspace>/<tenant>; no two tenants' roots may overlap or nest.",
          }),
        },
        { additionalProperties: false },
      ),
      { default: {}, additionalProperties: false, description: 'Per-tenant settings, by tenant name.' },
    ),
    allow_unauthenticated: Type.Boolean({ default: false }),
    trust_proxy: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      default: [],
      description: 'Addresses or CIDR ranges of proxies whose X-Forwarded-For names the client; none by default.',
    }),
    limits: Type.Object(
      {
        body_bytes: PositiveInt({ default: 1_048_576 }),
        calls_per_batch: PositiveInt({ default: 64, maximum: 10_000 }),
        arg_chars: PositiveInt({ default: 50_000 }),
        call_budget_bytes: Type.Integer({ minimum: 1024, default: 51_200 }),
        batch_budget_bytes: Type.Integer({ minimum: 1024, default: 204_800 }),
        image_bytes: PositiveInt({ default: 5_242_880 }),
        concurrency: PositiveInt({ default: 8, maximum: 256 }),
        tool_timeout_ms: PositiveInt({ default: 30_000 }),
        inflight_requests: PositiveInt({ default: 1024 }),
        inflight_per_key: PositiveInt({
          default: 256,
          description: "One key's requests in flight on a replica at once; past it RATE_LIMITED (429, Retry-After).",
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    defaults: Type.Object(
      {
        breaker: Type.Object(
          { failure_threshold: PositiveInt({ default: 3, maximum: 1000 }), recovery_ms: PositiveInt({ default: 300_000 }) },
          { additionalProperties: false, default: {} },
        ),
        rate_limit: Type.Optional(RateLimitSchema),
        per_tenant_breakers: Type.Boolean({
          default: true,
          description:
            "Each tenant's calls count against a breaker of its own; false: one per tool for every tenant. A tool's breaker.shared overrides it.",
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    state: Type.Object(
      {
        redis_url: Type.Optional(Type.String({ pattern: '^rediss?://' })),
        sentinels: Type.Optional(
          Type.Array(RedisNodeSchema, {
            minItems: 1,
            maxItems: 16,
            description: 'Sentinel: the sentinels that name the primary of `name` (REDIS_SENTINELS).',
          }),
        ),
        name: Type.Optional(
          Type.String({
            pattern: '^[A-Za-z0-9_.-]{1,64}$',
            description: 'Sentinel: the name of the primary the sentinels monitor (REDIS_SENTINEL_NAME).',
          }),
        ),
        sentinel_password: Type.Optional(
          Type.String({ minLength: 1, description: "Sentinel: the sentinels' own password (REDIS_SENTINEL_PASSWORD)." }),
        ),
        cluster_nodes: Type.Optional(
          Type.Array(RedisNodeSchema, {
            minItems: 1,
            maxItems: 64,
            description: 'Cluster: some of its nodes; the client learns the rest (REDIS_CLUSTER_NODES).',
          }),
        ),
        tls: Type.Boolean({
          default: false,
          description: 'Sentinel and Cluster: TLS to every node (and sentinel); a single node says rediss:// (REDIS_TLS).',
        }),
        username: Type.Optional(
          Type.String({ minLength: 1, description: 'Sentinel and Cluster: ACL user of the data nodes; a single node puts it in its URL.' }),
        ),
        password: Type.Optional(
          Type.String({
            minLength: 1,
            description: 'Sentinel and Cluster: password of the data nodes (REDIS_PASSWORD); a single node puts it in its URL.',
          }),
        ),
        key_prefix: Type.String({ default: 'toolgate', pattern: '^[A-Za-z0-9_.:-]{1,64}$' }),
        connect_timeout_ms: PositiveInt({ default: 2_000 }),
        command_timeout_ms: PositiveInt({ default: 500 }),
        replay_ttl_ms: PositiveInt({ default: 86_400_000 }),
        lock_ttl_ms: PositiveInt({ default: 86_400_000 }),
        approval_ttl_ms: PositiveInt({ default: 3_600_000 }),
        memory_max_bytes: PositiveInt({
          default: 67_108_864,
          description: 'In-memory state only: cap on replay and Idempotency-Key records together.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    spill: Type.Object(
      {
        url: Type.String({ default: 'file://./data/spill', pattern: '^(file|s3)://' }),
        ttl_ms: PositiveInt({ default: 86_400_000 }),
        tenant_quota_bytes: PositiveInt({
          default: 1_073_741_824,
          description: 'Spilled bytes per tenant; past it the oldest outputs go.',
        }),
        s3_endpoint: Type.Optional(
          Type.String({
            pattern: '^https?://[^/?#]+/?$',
            description: 'An S3-compatible endpoint (MinIO, Ceph, R2, LocalStack…), addressed path-style; absent: AWS.',
          }),
        ),
        s3_region: Type.String({ default: 'us-east-1', minLength: 1 }),
        timeout_ms: PositiveInt({
          default: 5_000,
          description: 'Each S3 request must connect and answer within it, else the spill fails.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    builtins: BuiltinsSchema,
    async: Type.Object(
      {
        inline_workers: Type.Integer({
          minimum: 0,
          maximum: 64,
          default: 0,
          description: 'Workers the server process runs itself; needs REDIS_URL.',
        }),
        concurrency: PositiveInt({ default: 1, maximum: 256, description: 'Batches one worker runs at once.' }),
        retention_ms: PositiveInt({ default: 86_400_000, description: 'How long GET /executions/{id} serves a finished execution.' }),
        retention_count: PositiveInt({
          default: 10_000,
          description: 'Finished executions kept at most, completed and failed each; the oldest go first.',
        }),
        lock_ms: Type.Integer({
          minimum: 1_000,
          default: 30_000,
          description: 'How long a job stays claimed by a worker that stopped renewing it.',
        }),
        callback_secret: Type.Optional(
          Type.String({ minLength: 1, description: 'HMAC key of callback signatures; ${VAR} reads it from the environment.' }),
        ),
        callback_retries: Type.Integer({ minimum: 0, maximum: 20, default: 5 }),
        callback_backoff_ms: PositiveInt({
          default: 1_000,
          description: 'Delay before the first retry of a callback; doubled for each next one.',
        }),
        callback_timeout_ms: PositiveInt({ default: 10_000 }),
        callback_allow_private_network: Type.Boolean({ default: false }),
      },
      { additionalProperties: false, default: {} },
    ),
    approvals: ApprovalsSchema,
    audit: AuditSchema,
    tools: Type.Array(ToolConfigSchema, { default: [] }),
    mcp_servers: Type.Array(McpServerSchema, { default: [] }),
    openapi_sources: Type.Array(OpenApiSourceSchema, { default: [] }),
    oauth_providers: Type.Array(OAuthProviderSchema, {
      default: [],
      description: 'Where people authorize toolgate for tools that act as them (docs/credentials.md).',
    }),
    oauth: OAuthLinksSchema,
    toolsets: Type.Record(Type.String({ pattern: TOOLSET_NAME }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }), {
      default: {},
      // A set name must be one a URL path segment carries as it is (/mcp/{toolset}).
      additionalProperties: false,
      description:
        'Named groups of tools (names or globs), for GET /tools?toolset=, POST /execute?toolset=, /mcp/{toolset} and keys[].toolsets.',
    }),
    policy: Type.Object({ rules: Type.Array(PolicyRuleSchema, { default: [] }) }, { additionalProperties: false, default: {} }),
    guardrails: GuardrailsSchema,
    keys: Type.Array(KeySchema, { default: [] }),
    keys_file: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'A YAML file holding a list of key entries, relative to the config file; they join `keys`.',
      }),
    ),
    auth: Type.Object(
      {
        failures_per_minute: PositiveInt({ default: 20 }),
        oauth: Type.Array(OAuthIssuerSchema, {
          default: [],
          description: 'Authorization servers whose access tokens are accepted beside the API keys (docs/auth.md).',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false, $id: 'ToolgateConfig' },
);

export type Config = Static<typeof ConfigSchema>;
export type ToolConfig = Static<typeof ToolConfigSchema>;
export type PolicyRule = Static<typeof PolicyRuleSchema>;
export type BuiltinOverride = Static<typeof BuiltinOverrideSchema>;
export type BashConfig = Static<typeof BashSchema>;
export type McpServerConfig = Static<typeof McpServerSchema>;
export type McpToolOverride = Static<typeof McpToolOverrideSchema>;
export type OpenApiSourceConfig = Static<typeof OpenApiSourceSchema>;
