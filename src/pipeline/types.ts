import type { Catalog } from '../catalog/catalog.js';
import type { ToolEvents, ToolOutput } from '../tools/tool.js';
import type { FastifyBaseLogger } from 'fastify';
import type { GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
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
import type { Admission, AdmitRequest, SettleRequest, StateStore, StoredResult } from '../state/state-store.js';
import type { CallResult } from '../protocol/result.js';
import type { RateLimitSettings } from '../shared/settings.js';
import type { Policy } from '../policy/index.js';
import type { Outage } from './outage.js';
import type { Workspaces } from '../tools/workspaces.js';
import type { CredentialProvider } from '../tools/credentials.js';
import type { SubjectToken } from '../shared/subject-token.js';

/** What a key may do: `on_behalf` lets it name the user a request is for (`x-toolgate-user`). */
export type KeyScope = 'execute' | 'admin' | 'on_behalf';

/** Who is calling: resolved from the API key or the access token (or the anonymous loopback caller). */
export interface Caller {
  keyId: string;
  tenant: string;
  scopes: ReadonlySet<KeyScope>;
  /** The person the call is for: a token's subject, or `x-toolgate-user` from an on_behalf key; absent: the key's own call. */
  user?: string;
  /** The access token the caller presented (never a key): exchanged for a provider's with token exchange, shown nowhere. */
  subjectToken?: SubjectToken;
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
  guardrails: Guardrails;
  workspaces: Workspaces;
  /** The secrets each tool may use for each caller (ToolContext.credentials). */
  credentials: CredentialProvider;
  /** The upstream MCP servers' resources, templates and prompts, read for a caller (pipeline/offers.ts); none without servers. */
  offers?: UpstreamOffers;
  /** What GET /tools, /mcp's tools/list and tool_search show a caller: one instance per process part. */
  catalog: Catalog<Caller>;
  /** `keys`: which tenants exist, for the per-tenant breaker gauge; `toolsets`: the named sets requests may ask for. */
  config: Pick<Config, 'limits' | 'state' | 'defaults' | 'keys' | 'toolsets' | 'approvals'>;
  /** With `approvals.webhook_url`: each approval request opened, and each decision, is told to it. */
  approvalEvents?: ApprovalEvents;
  /** The audit trail every call's record goes to; none with `audit: false`. */
  audit?: AuditTrail;
}

/** Resources, templates and prompts of the upstream MCP servers for a caller (docs/mcp.md, "Resources and prompts"); GatewayErrors otherwise. */
export interface UpstreamOffers {
  /** What the caller may reach, as it sees it: resources/list, resources/templates/list, prompts/list. */
  resources(caller: Caller): Resource[];
  templates(caller: Caller): ResourceTemplate[];
  prompts(caller: Caller): Prompt[];
  /** resources/read: the contents under gateway URIs, redacted, each over the per-call budget cut with its record in `_meta`. */
  readResource(caller: Caller, uri: string, log: FastifyBaseLogger): Promise<ReadResourceResult>;
  /** prompts/get: the prompt's messages, redacted. */
  getPrompt(caller: Caller, name: string, args: Record<string, string>): Promise<GetPromptResult>;
  /** completion/complete for a prompt's argument (`ref/prompt`) or a template's variable (`ref/resource`), as the caller may reach them. */
  complete(caller: Caller, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Told which lists changed (resources, templates included, or prompts) whenever a server's listing changes them. */
  onChange(listener: (changed: ReadonlySet<'resources' | 'prompts'>) => void): void;
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
  /** The arguments as the caller sent them: the validate gate may drop strict-mode nulls from `args`. */
  sentArgs?: Record<string, unknown>;
  /** sha256 of tool name and canonical arguments, as the caller sent them. */
  fingerprint?: string;
  /** For a tool that classifies its arguments, the hash of their canonical spelling: what an approval is bound to. */
  approvalFingerprint?: string;
  decision?: 'allow' | 'ask' | 'deny';
  /** Why the policy decided so (`policy rule N`, `no rule matched`, …), for the audit record. */
  policyReason?: string;
  /** The tool's own class reads the call as read-only (CallVerdict.readOnly); its tool gets it as ToolContext.readOnly. */
  readOnly?: boolean;
  /** The decided approval that admitted (approved) or stopped (denied) an ASKed call, and who decided it. */
  approval?: { id: string; decidedBy: string; decision: 'approved' | 'denied' };
  /** Set by the first gate that stops the call; nothing runs after it. */
  failure?: GatewayError;
}

/** What admission decided for a call that passed the local checks. */
export type AdmitOutcome =
  { kind: 'run'; probe: boolean; replayLease: boolean } | { kind: 'replayed'; result: StoredResult } | { kind: 'stopped' };

type Admitted = Extract<Admission, { outcome: 'admitted' }>;

/** A call admitted to run, as its tool answered: what the gates settle. */
export interface RanCall {
  call: PlannedCall;
  result: CallResult;
  error?: GatewayError;
  output?: ToolOutput;
  outcome: AdmitOutcome & { kind: 'run' };
}

/** One gate: local gates check the call; stateful ones add their part to admission and to record (gate 9), and read the answer. */
export interface Gate {
  readonly name: string;
  /** Work the check needs, started for every call of the request at once before any call is checked. */
  prepare?(call: PlannedCall, ctx: ExecContext, deps: PipelineDeps): Promise<void> | undefined;
  /** The error that stops the call here, or undefined to let it on. */
  check?(call: PlannedCall, ctx: ExecContext, deps: PipelineDeps): GatewayError | undefined;
  admit?(call: PlannedCall, request: AdmitRequest, ctx: ExecContext, deps: PipelineDeps): void;
  /** Whether the call cannot run without the state store (STATE_UNAVAILABLE while it is down) because of this gate's part. */
  needsStore?(request: AdmitRequest): boolean;
  /** The batch's answers before any is read; may ask the store once more. */
  review?(calls: readonly PlannedCall[], requests: readonly AdmitRequest[], answers: Admission[], deps: PipelineDeps): Promise<Admission[]>;
  /** What an admission means for the call here. */
  admitted?(call: PlannedCall, admission: Admitted, request: AdmitRequest): void;
  /** What any other answer means for the call, when the answer is this gate's: an error stops the call. */
  answer?(
    call: PlannedCall,
    admission: Admission,
    ctx: ExecContext,
    deps: PipelineDeps,
  ): GatewayError | AdmitOutcome | Promise<AdmitOutcome> | undefined;
  settle?(ran: RanCall, request: SettleRequest, ctx: ExecContext, deps: PipelineDeps): void;
}
