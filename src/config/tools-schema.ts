import { Type, type Static } from 'typebox';
import { UpstreamAuthSchema } from './credentials-schema.js';

/*
 * The configuration's tools: the settings each tool declares or inherits from
 * `defaults`, declared tools, MCP servers, OpenAPI sources and built-ins
 * (schema.ts holds the rest).
 */

export const PositiveInt = (options: { default?: number; maximum?: number; description?: string } = {}) =>
  Type.Integer({ minimum: 1, ...options });

const BreakerSchema = Type.Object(
  {
    failure_threshold: Type.Optional(PositiveInt({ maximum: 1000 })),
    recovery_ms: Type.Optional(PositiveInt()),
    shared: Type.Optional(
      Type.Boolean({
        description:
          "One breaker for every tenant, for a tool whose upstream is one for everyone; default: each tenant's own (defaults.per_tenant_breakers).",
      }),
    ),
  },
  { additionalProperties: false },
);

export const RateLimitSchema = Type.Object(
  {
    per_minute: PositiveInt(),
    per: Type.Optional(
      Type.Union([Type.Literal('key'), Type.Literal('user')], {
        description: "key (the default): one bucket per key and tool; user: one per user of the key (x-toolgate-user, a token's subject).",
      }),
    ),
  },
  { additionalProperties: false },
);

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
  side_effects: Type.Optional(
    Type.Boolean({
      description: 'Calls are replayed by call id and audited before they are answered; default: not concurrency_safe.',
    }),
  ),
  timeout_ms: Type.Optional(PositiveInt()),
  requires_approval: Type.Optional(Type.Boolean()),
  breaker: Type.Optional(BreakerSchema),
  rate_limit: Type.Optional(RateLimitSchema),
  max_arg_chars: Type.Optional(
    PositiveInt({
      description:
        'Longest string argument (Write/Edit: their content arguments); default limits.arg_chars (Write/Edit: limits.body_bytes).',
    }),
  ),
};

export const ToolConfigSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    description: Type.String({ minLength: 1 }),
    parameters: Type.Object({ type: Type.Literal('object') }, { additionalProperties: true }),
    http: HttpSpecSchema,
    auth: Type.Optional(UpstreamAuthSchema),
    ...ToolSettings,
  },
  { additionalProperties: false },
);

/** Settings an upstream MCP server gives one of its tools, by upstream name; they win over the server's own. */
export const McpToolOverrideSchema = Type.Object(ToolSettings, { additionalProperties: false });

export const McpServerSchema = Type.Object(
  {
    name: Type.String({
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      description: 'Unique; names the server in logs, metrics and GET /tools/{name}.',
    }),
    command: Type.Optional(Type.String({ minLength: 1, description: 'stdio: the program to start.' })),
    args: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String())),
    cwd: Type.Optional(Type.String({ minLength: 1 })),
    url: Type.Optional(Type.String({ pattern: '^https?://', description: 'Streamable HTTP: the endpoint.' })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    allow_private_network: Type.Optional(Type.Boolean()),
    auth: Type.Optional(UpstreamAuthSchema),
    prefix: Type.String({ default: '', pattern: '^[A-Za-z0-9_-]{0,63}$' }),
    include: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    tools: Type.Record(Type.String(), McpToolOverrideSchema, { default: {} }),
    roots: Type.Array(
      Type.Object(
        { uri: Type.String({ pattern: '^file://', description: 'A file:// URI.' }), name: Type.Optional(Type.String({ minLength: 1 })) },
        { additionalProperties: false },
      ),
      { default: [], description: "What the gateway answers the server's roots/list with; none by default." },
    ),
    connect_timeout_ms: PositiveInt({ default: 10_000 }),
    refresh_ms: PositiveInt({ default: 60_000 }),
    idle_close_ms: PositiveInt({
      default: 300_000,
      description: 'With auth: a person’s connection is closed after this long without a call.',
    }),
    max_user_connections: PositiveInt({
      default: 100,
      description: 'With auth: the most per-person connections open at once; a new one closes the least recently used idle one.',
    }),
    ...ToolSettings,
  },
  { additionalProperties: false },
);

export const OpenApiSourceSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Unique; names the source in start-up problems.' }),
    spec: Type.String({
      minLength: 1,
      description:
        'The OpenAPI 3.0 or 3.1 (or Swagger 2.0) document, JSON or YAML: an http(s) URL, or a file path relative to the config file.',
    }),
    base_url: Type.Optional(
      Type.String({ pattern: '^https?://', description: "Where the operations are called; wins over the document's servers[0].url." }),
    ),
    prefix: Type.String({ default: '', pattern: '^[A-Za-z0-9_-]{0,63}$', description: 'Prepended to every tool name.' }),
    include: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'operationId globs; absent: every operation.' })),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'Sent with every call; ${VAR} from the environment.' }),
    ),
    allow_private_network: Type.Optional(Type.Boolean({ description: 'For the document URL and the calls alike.' })),
    auth: Type.Optional(UpstreamAuthSchema),
    retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    max_response_bytes: Type.Optional(PositiveInt()),
    follow_redirects: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    spec_timeout_ms: PositiveInt({
      default: 10_000,
      description: 'The whole load of the document: fetching, parsing, reading its schemas.',
    }),
    max_spec_bytes: PositiveInt({ default: 16_777_216, description: 'The largest document read.' }),
    spec_memory_mb: Type.Integer({ minimum: 32, maximum: 4096, default: 512, description: 'The heap the load of the document may use.' }),
    ...ToolSettings,
  },
  { additionalProperties: false },
);

export const BuiltinOverrideSchema = Type.Object(
  { enabled: Type.Optional(Type.Boolean()), ...ToolSettings },
  { additionalProperties: false },
);

/** The Bash built-in: a built-in's settings plus where and within what bounds its commands run (docs/bash.md). */
export const BashSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'Off unless true: a fresh gateway never serves a shell.' })),
    ...ToolSettings,
    sandbox: Type.Union([Type.Literal('auto'), Type.Literal('required'), Type.Literal('none')], {
      default: 'auto',
      description: 'auto: bubblewrap when it works here; required: refuse to start without it; none: run without (warned at start-up).',
    }),
    git_history: Type.Union([Type.Literal('masked'), Type.Literal('visible')], {
      default: 'masked',
      description:
        "masked: inside the sandbox, a repository's object store and index are masked where a rule for reading may hold for one of its paths; visible: never masked (warned at start-up).",
    }),
    output_cap_bytes: PositiveInt({
      default: 1_048_576,
      description: 'Bytes of stdout, and of stderr, kept in the result; the rest of a stream is spilled.',
    }),
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
export const BuiltinsSchema = Type.Unsafe<
  { Bash: Static<typeof BashSchema> } & Partial<Record<string, Static<typeof BuiltinOverrideSchema>>>
>(Type.Object({ Bash: BashSchema }, { additionalProperties: BuiltinOverrideSchema, default: {} }));
