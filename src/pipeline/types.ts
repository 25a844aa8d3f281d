import type { ToolEvents } from '../tools/tool.js';
import type { FastifyBaseLogger } from 'fastify';
import type { ApprovalEvents } from '../approvals/index.js';
import type { AuditTrail } from '../audit/index.js';
import type { Config } from '../config/schema.js';
import type { Guardrails } from '../guardrails/index.js';
import type { Metrics } from '../observability/metrics.js';
import type { TraceSpan } from '../observability/spans.js';
import type { GatewayError } from '../protocol/errors.js';
import type { ToolFormat } from '../protocol/catalog.js';
import type { RegisteredTool, ToolRegistry } from '../registry/registry.js';
import type { SpillStore } from '../spill/spill-store.js';
import type { Clock } from '../shared/clock.js';
import type { StateStore } from '../state/state-store.js';
import type { RateLimitSettings } from '../shared/settings.js';
import type { Policy } from '../policy/index.js';
import type { Outage } from './outage.js';

/** Who is calling: resolved from the API key (or the anonymous loopback caller). */
export interface Caller {
  keyId: string;
  tenant: string;
  scopes: ReadonlySet<'execute' | 'admin'>;
  /** Whether the key may see and call this tool. */
  allows(tool: string): boolean;
  /** The key's tool names or globs that `allows` matches, as configured; absent: every tool. A queued batch carries them to its worker. */
  tools?: readonly string[];
  /** The toolsets the key is limited to (`keys[].toolsets`); absent: every toolset, and every tool `tools` allows. */
  toolsets?: readonly string[];
  /** Further lists (names or globs) `allows` holds the caller to, each one: the key's toolsets as one list, a request's toolset. */
  only?: ReadonlyArray<readonly string[]>;
  /** The toolset this request asked for (`?toolset=`, `/mcp/{toolset}`); listings are cached per set. */
  toolset?: string;
  rateLimit?: RateLimitSettings;
}

/** One request's view of the pipeline. */
export interface ExecContext {
  caller: Caller;
  sessionId: string;
  log: FastifyBaseLogger;
  /** The request's `timeout_ms`: lowers, never raises, each call's timeout. */
  timeoutMs?: number;
  /** The request's span, parent of one span per call; absent with tracing off. */
  span?: TraceSpan;
  /** The HTTP request's id (`x-request-id`), for the audit record; absent for a queued job. */
  requestId?: string;
  /** The model that proposed the calls, for the per-call log line (see protocol/calls/model.ts); absent when unknown. */
  model?: string;
  /** The dialect of the request's calls (`mcp` over /mcp); tool_search renders what it finds in it. Absent: openai. */
  format?: ToolFormat;
  /** An /mcp caller that listens while the call runs: progress and log messages of upstream MCP tools. */
  events?: ToolEvents;
  /** Aborted when the caller cancels (an /mcp `notifications/cancelled`): the running tool is stopped, the call answers CANCELLED. */
  cancel?: AbortSignal;
}

export interface PipelineDeps {
  registry: ToolRegistry;
  state: StateStore;
  spill: SpillStore;
  clock: Clock;
  metrics: Metrics;
  policy: Policy;
  health: Outage;
  spillHealth: Outage;
  /** Which tools' outputs are scanned for credentials, and with which rules. */
  guardrails: Guardrails;
  /** `keys`: which tenants exist, for the per-tenant breaker gauge; `toolsets`: the named sets requests may ask for. */
  config: Pick<Config, 'limits' | 'state' | 'defaults' | 'keys' | 'toolsets' | 'approvals'>;
  /** With `approvals.webhook_url`: each approval request opened, and each decision, is told to it. */
  approvalEvents?: ApprovalEvents;
  /** The audit trail every call's record goes to; none with `audit: false`. */
  audit?: AuditTrail;
}

/** A call on its way through the gates. Later gates fill in what earlier ones found. */
export interface PlannedCall {
  index: number;
  id: string;
  name: string;
  rawArguments: unknown;
  entry?: RegisteredTool;
  args?: Record<string, unknown>;
  /** Other spellings of `args` (Tool.canonicalArgs), the canonical one first; found before the permission gate. */
  spellings?: Array<Record<string, unknown>>;
  /** sha256 of tool name and canonical arguments, as the caller sent them. */
  fingerprint?: string;
  /** For a tool that classifies its arguments, the hash of their canonical spelling: what an approval is bound to. */
  approvalFingerprint?: string;
  decision?: 'allow' | 'ask' | 'deny';
  /** Why the policy decided so (`policy rule N`, `no rule matched`, …), for the audit record. */
  policyReason?: string;
  /** The approval that admitted an ASKed call, and who decided it. */
  approval?: { id: string; decidedBy: string };
  /** Set by the first gate that stops the call; nothing runs after it. */
  failure?: GatewayError;
}

/** A gate that needs nothing but the call and the request: it stops the call or lets it on. */
export type LocalGate = (call: PlannedCall, ctx: ExecContext, deps: PipelineDeps) => GatewayError | undefined;
