import { Type, type Static } from 'typebox';
import { ApprovalsSchema } from './approvals-schema.js';
import { AuditSchema } from './audit-schema.js';

const PositiveInt = (options: { default?: number; maximum?: number; description?: string } = {}) =>
  Type.Integer({ minimum: 1, ...options });

const BreakerSchema = Type.Object(
  {
    failure_threshold: Type.Optional(PositiveInt({ maximum: 1000 })),
    recovery_ms: Type.Optional(PositiveInt()),
  },
  { additionalProperties: false },
);

/** A Redis node or sentinel: a host name or an IP address (IPv6 without brackets), and its port. */
const RedisNodeSchema = Type.Object(
  { host: Type.String({ minLength: 1, maxLength: 253, pattern: '^[^\\s/:]+$|^[0-9A-Fa-f:.]+$' }), port: Type.Integer({ minimum: 1, maximum: 65_535 }) },
  { additionalProperties: false },
);

const RateLimitSchema = Type.Object({ per_minute: PositiveInt() }, { additionalProperties: false });

const HttpSpecSchema = Type.Object(
  {
    method: Type.Union([Type.Literal('GET'), Type.Literal('POST'), Type.Literal('PUT'), Type.Literal('PATCH'), Type.Literal('DELETE')]),
    url: Type.String({ minLength: 1 }),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    idempotent: Type.Optional(Type.Boolean()),
    max_response_bytes: Type.Optional(PositiveInt()),
    allow_private_network: Type.Optional(Type.Boolean()),
    follow_redirects: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
  },
  { additionalProperties: false },
);

/** Gateway settings a tool declares or inherits from `defaults`. */
const ToolSettings = {
  concurrency_safe: Type.Optional(Type.Boolean()),
  timeout_ms: Type.Optional(PositiveInt()),
  requires_approval: Type.Optional(Type.Boolean()),
  breaker: Type.Optional(BreakerSchema),
  rate_limit: Type.Optional(RateLimitSchema),
  max_arg_chars: Type.Optional(
    PositiveInt({ description: "Longest string argument (Write/Edit: their content arguments); default limits.arg_chars (Write/Edit: limits.body_bytes)." }),
  ),
};

const ToolConfigSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    description: Type.String({ minLength: 1 }),
    parameters: Type.Object({ type: Type.Literal('object') }, { additionalProperties: true }),
    http: HttpSpecSchema,
    ...ToolSettings,
  },
  { additionalProperties: false },
);

/** Settings an upstream MCP server gives one of its tools, by upstream name; they win over the server's own. */
const McpToolOverrideSchema = Type.Object(ToolSettings, { additionalProperties: false });

const McpServerSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Unique; names the server in logs, metrics and GET /tools/{name}.' }),
    command: Type.Optional(Type.String({ minLength: 1, description: 'stdio: the program to start.' })),
    args: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String())),
    cwd: Type.Optional(Type.String({ minLength: 1 })),
    url: Type.Optional(Type.String({ pattern: '^https?://', description: 'Streamable HTTP: the endpoint.' })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    allow_private_network: Type.Optional(Type.Boolean()),
    prefix: Type.String({ default: '', pattern: '^[A-Za-z0-9_-]{0,63}$' }),
    include: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    tools: Type.Record(Type.String(), McpToolOverrideSchema, { default: {} }),
    connect_timeout_ms: PositiveInt({ default: 10_000 }),
    refresh_ms: PositiveInt({ default: 60_000 }),
    ...ToolSettings,
  },
  { additionalProperties: false },
);

const OpenApiSourceSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Unique; names the source in start-up problems.' }),
    spec: Type.String({ minLength: 1, description: 'The OpenAPI 3.0 or 3.1 document, JSON or YAML: an http(s) URL, or a file path relative to the config file.' }),
    base_url: Type.Optional(Type.String({ pattern: '^https?://', description: "Where the operations are called; wins over the document's servers[0].url." })),
    prefix: Type.String({ default: '', pattern: '^[A-Za-z0-9_-]{0,63}$', description: 'Prepended to every tool name.' }),
    include: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'operationId globs; absent: every operation.' })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Sent with every call; ${VAR} from the environment.' })),
    allow_private_network: Type.Optional(Type.Boolean({ description: 'For the document URL and the calls alike.' })),
    retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    max_response_bytes: Type.Optional(PositiveInt()),
    follow_redirects: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    spec_timeout_ms: PositiveInt({ default: 10_000, description: 'Fetching and dereferencing the document at start-up.' }),
    max_spec_bytes: PositiveInt({ default: 16_777_216, description: 'The largest document read.' }),
    ...ToolSettings,
  },
  { additionalProperties: false },
);

const BuiltinOverrideSchema = Type.Object({ enabled: Type.Optional(Type.Boolean()), ...ToolSettings }, { additionalProperties: false });

/** The Bash built-in: a built-in's settings plus where and within what bounds its commands run (docs/bash.md). */
const BashSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'Off unless true: a fresh gateway never serves a shell.' })),
    ...ToolSettings,
    sandbox: Type.Union([Type.Literal('auto'), Type.Literal('required'), Type.Literal('none')], {
      default: 'auto',
      description: 'auto: bubblewrap when it works here; required: refuse to start without it; none: run without (warned at start-up).',
    }),
    output_cap_bytes: PositiveInt({ default: 1_048_576, description: 'Bytes of stdout, and of stderr, kept in the result; the rest of a stream is spilled.' }),
    limits: Type.Object(
      {
        processes: PositiveInt({ default: 128, description: 'RLIMIT_NPROC: processes of the user the command runs as.' }),
        file_size_bytes: PositiveInt({ default: 268_435_456, description: 'RLIMIT_FSIZE: the largest file a command may write.' }),
        cpu_seconds: PositiveInt({ default: 60, description: 'RLIMIT_CPU: CPU time of each process.' }),
        open_files: PositiveInt({ default: 1024, description: 'RLIMIT_NOFILE: open files of each process.' }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false, default: {} },
);

/**
 * `builtins`: Bash with its own settings, every other built-in by name. The
 * type spells out what the schema's `additionalProperties` means, which
 * TypeBox's Static leaves out.
 */
const BuiltinsSchema = Type.Unsafe<{ Bash: Static<typeof BashSchema> } & Partial<Record<string, Static<typeof BuiltinOverrideSchema>>>>(
  Type.Object({ Bash: BashSchema }, { additionalProperties: BuiltinOverrideSchema, default: {} }),
);

const PolicyRuleSchema = Type.Object(
  {
    tool: Type.String({ minLength: 1, description: 'Tool name or glob.' }),
    when: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Argument name → regular expression; every one must match.' })),
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
      description: 'redact: credentials in tool outputs are replaced by [REDACTED:<kind>] before anything leaves the gateway; off: outputs pass as they are.',
    }),
    secrets_allow: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'Regular expressions (RE2) of values never redacted, e.g. the fake keys of test fixtures; any part of a value may match.',
    }),
    tools: Type.Record(Type.String({ minLength: 1 }), Type.Object({ secrets: SecretsSetting }, { additionalProperties: false }), {
      default: {},
      description: 'Tool name or glob → its own `secrets` setting; an exact name wins over globs, and the first matching glob over later ones.',
    }),
  },
  { additionalProperties: false, default: {} },
);

const TOOLSET_NAME = '^[A-Za-z0-9_-]{1,64}$';

/** One API key entry, in `keys` or in the file `keys_file` names. */
export const KeySchema = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    tenant: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' }),
    scopes: Type.Array(Type.Union([Type.Literal('execute'), Type.Literal('admin')]), { minItems: 1, uniqueItems: true }),
    tools: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    toolsets: Type.Optional(
      Type.Array(Type.String({ pattern: TOOLSET_NAME }), { minItems: 1, uniqueItems: true, description: 'The key sees only the tools of these sets (and of `tools`, when both are given).' }),
    ),
    rate_limit: Type.Optional(RateLimitSchema),
  },
  { additionalProperties: false },
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
        per_tenant_breakers: Type.Boolean({ default: false }),
      },
      { additionalProperties: false, default: {} },
    ),
    state: Type.Object(
      {
        redis_url: Type.Optional(Type.String({ pattern: '^rediss?://' })),
        sentinels: Type.Optional(
          Type.Array(RedisNodeSchema, { minItems: 1, maxItems: 16, description: 'Sentinel: the sentinels that name the primary of `name` (REDIS_SENTINELS).' }),
        ),
        name: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', description: 'Sentinel: the name of the primary the sentinels monitor (REDIS_SENTINEL_NAME).' })),
        sentinel_password: Type.Optional(Type.String({ minLength: 1, description: "Sentinel: the sentinels' own password (REDIS_SENTINEL_PASSWORD)." })),
        cluster_nodes: Type.Optional(
          Type.Array(RedisNodeSchema, { minItems: 1, maxItems: 64, description: 'Cluster: some of its nodes; the client learns the rest (REDIS_CLUSTER_NODES).' }),
        ),
        tls: Type.Boolean({ default: false, description: 'Sentinel and Cluster: TLS to every node (and sentinel); a single node says rediss:// (REDIS_TLS).' }),
        username: Type.Optional(Type.String({ minLength: 1, description: 'Sentinel and Cluster: ACL user of the data nodes; a single node puts it in its URL.' })),
        password: Type.Optional(Type.String({ minLength: 1, description: 'Sentinel and Cluster: password of the data nodes (REDIS_PASSWORD); a single node puts it in its URL.' })),
        key_prefix: Type.String({ default: 'toolgate', pattern: '^[A-Za-z0-9_.:-]{1,64}$' }),
        connect_timeout_ms: PositiveInt({ default: 2_000 }),
        command_timeout_ms: PositiveInt({ default: 500 }),
        replay_ttl_ms: PositiveInt({ default: 86_400_000 }),
        lock_ttl_ms: PositiveInt({ default: 86_400_000 }),
        approval_ttl_ms: PositiveInt({ default: 3_600_000 }),
        memory_max_bytes: PositiveInt({ default: 67_108_864, description: 'In-memory state only: cap on replay and Idempotency-Key records together.' }),
      },
      { additionalProperties: false, default: {} },
    ),
    spill: Type.Object(
      {
        url: Type.String({ default: 'file://./data/spill', pattern: '^(file|s3)://' }),
        ttl_ms: PositiveInt({ default: 86_400_000 }),
        tenant_quota_bytes: PositiveInt({ default: 1_073_741_824, description: 'Spilled bytes per tenant; past it the oldest outputs go.' }),
        s3_endpoint: Type.Optional(
          Type.String({ pattern: '^https?://[^/?#]+/?$', description: 'An S3-compatible endpoint (MinIO, Ceph, R2, LocalStack…), addressed path-style; absent: AWS.' }),
        ),
        s3_region: Type.String({ default: 'us-east-1', minLength: 1 }),
        timeout_ms: PositiveInt({ default: 5_000, description: 'Each S3 request must connect and answer within it, else the spill fails.' }),
      },
      { additionalProperties: false, default: {} },
    ),
    builtins: BuiltinsSchema,
    async: Type.Object(
      {
        inline_workers: Type.Integer({ minimum: 0, maximum: 64, default: 0, description: 'Workers the server process runs itself; needs REDIS_URL.' }),
        concurrency: PositiveInt({ default: 1, maximum: 256, description: 'Batches one worker runs at once.' }),
        retention_ms: PositiveInt({ default: 86_400_000, description: 'How long GET /executions/{id} serves a finished execution.' }),
        retention_count: PositiveInt({ default: 10_000, description: 'Finished executions kept at most, completed and failed each; the oldest go first.' }),
        lock_ms: Type.Integer({ minimum: 1_000, default: 30_000, description: 'How long a job stays claimed by a worker that stopped renewing it.' }),
        callback_secret: Type.Optional(Type.String({ minLength: 1, description: 'HMAC key of callback signatures; ${VAR} reads it from the environment.' })),
        callback_retries: Type.Integer({ minimum: 0, maximum: 20, default: 5 }),
        callback_backoff_ms: PositiveInt({ default: 1_000, description: 'Delay before the first retry of a callback; doubled for each next one.' }),
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
    toolsets: Type.Record(Type.String({ pattern: TOOLSET_NAME }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }), {
      default: {},
      // A set name must be one a URL path segment carries as it is (/mcp/{toolset}).
      additionalProperties: false,
      description: 'Named groups of tools (names or globs), for GET /tools?toolset=, POST /execute?toolset=, /mcp/{toolset} and keys[].toolsets.',
    }),
    policy: Type.Object({ rules: Type.Array(PolicyRuleSchema, { default: [] }) }, { additionalProperties: false, default: {} }),
    guardrails: GuardrailsSchema,
    keys: Type.Array(KeySchema, { default: [] }),
    keys_file: Type.Optional(
      Type.String({ minLength: 1, description: 'A YAML file holding a list of key entries, relative to the config file; they join `keys`.' }),
    ),
    auth: Type.Object(
      {
        failures_per_minute: PositiveInt({ default: 20 }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false, $id: 'ToolgateConfig' },
);

export type Config = Static<typeof ConfigSchema>;
export type ToolConfig = Static<typeof ToolConfigSchema>;
export type KeyConfig = Static<typeof KeySchema>;
export type PolicyRule = Static<typeof PolicyRuleSchema>;
export type BuiltinOverride = Static<typeof BuiltinOverrideSchema>;
export type BashConfig = Static<typeof BashSchema>;
export type McpServerConfig = Static<typeof McpServerSchema>;
export type McpToolOverride = Static<typeof McpToolOverrideSchema>;
export type OpenApiSourceConfig = Static<typeof OpenApiSourceSchema>;
