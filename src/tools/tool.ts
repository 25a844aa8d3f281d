import type { RedactionCounts, SecretScanner } from '../guardrails/index.js';
import type { TraceHeaders } from '../observability/spans.js';
import type { GatewayError } from '../protocol/errors.js';
import type { ToolFormat } from '../protocol/catalog.js';
import type { ContentBlock } from '../protocol/content.js';
import type { SpillOutcome } from '../spill/spill-store.js';
import type { BreakerSettings, RateLimitSettings } from '../shared/settings.js';
import type { Credentials, ToolCaller } from './credentials.js';
import type { ToolCapabilities } from './capabilities.js';
import type { Workspace } from './workspace-types.js';

/** A JSON Schema object describing a tool's arguments (always `type: "object"`). */
export type JsonSchema = Record<string, unknown>;

/** What an `/mcp` caller that accepts a stream hears while the call runs: an upstream MCP tool's progress and log messages. */
export interface ToolEvents {
  /** Present when the caller asked for progress; an upstream MCP tool then asks its server for it. */
  progress?(update: { progress: number; total?: number; message?: string }): void;
  /** A log message (`notifications/message` params) the tool's upstream server sent during the call. */
  log(entry: Record<string, unknown>): void;
  /**
   * Present when the caller is an `/mcp` client that can be asked while its call runs: relays an upstream server's request during the call
   * to it and settles with its answer, or with the error the upstream gets (the client did not declare the capability, did not answer
   * before `signal`, or answered with an error).
   */
  ask?(request: ClientRequest, signal: AbortSignal): Promise<ClientAnswer>;
}

/** A request an upstream MCP server sends its client during a call, which only the caller's own MCP client can answer. */
export interface ClientRequest {
  method: 'elicitation/create' | 'sampling/createMessage';
  params: Record<string, unknown>;
}

/** The caller's answer to a ClientRequest: its result, or a JSON-RPC error for the upstream. */
export type ClientAnswer = { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };

/** The fleet-wide write lock of a workspace file, held by Write and Edit around their check and rename (docs/replicas.md, "The write lock"). */
export interface FileLocks {
  /** Waits to hold `file`'s lock under `holder` (its existing temp file); TIMEOUT at the deadline, STATE_UNAVAILABLE without the store. */
  acquire(file: string, holder: string): Promise<FileLease>;
}

/** A held file lock. */
export interface FileLease {
  /** Temp files (names in the file's directory) of earlier holders whose lease lapsed: removed before the file is checked. */
  readonly fence: readonly string[];
  /** Ends the hold, never throwing: released when `fenced` (every name in `fence` gone), else left to lapse, this holder added to the fence. */
  release(fenced: boolean): Promise<void>;
}

/** The call's output guardrails when on for its tool (docs/guardrails.md): match the redacted view, cut after the scan. */
export interface ToolSecrets {
  scanner: SecretScanner;
  /** Redactions the tool made itself in what it shows, counted with the result's (its note line, `data.redactions`, the metric). */
  count(counts: RedactionCounts): void;
}

/** What a tool sees of the call it runs. */
export interface ToolContext {
  /** Aborted at the call's deadline; tools should stop work when it fires. */
  signal: AbortSignal;
  /** Whether `signal` has fired, read without making it (the pipeline makes one only for a tool that asks): for checks between steps. */
  readonly aborted: boolean;
  /** Who the call runs for. */
  readonly caller: ToolCaller;
  /** The secrets of this tool for this caller: a tool authenticates upstream with these, never with the environment. */
  readonly credentials: Credentials;
  /** The caller's tenant's workspace (tools/workspaces.ts): the only files a call may touch. */
  readonly workspace: Workspace;
  sessionId: string;
  callId: string;
  /** Epoch ms after which the result is dropped. */
  deadline: number;
  /** The permission gate found every part of the call read-only by the tool's own class (CallVerdict.readOnly): never derived again. */
  readOnly?: boolean;
  /** Store a large output as it streams in; a store failure resolves as a SpillFailure, only the content's own failure rejects. */
  spill(content: string | Buffer | AsyncIterable<Buffer>): Promise<SpillOutcome>;
  /** `limits.image_bytes`: the largest image one block may hold (see tools/content.ts). */
  imageBytes: number;
  /** The tenant's file write locks, for Write and Edit. */
  fileLocks: FileLocks;
  /** With tracing on: the call span's `traceparent` (and `tracestate`), for the tool to pass on to its upstream. */
  trace?: TraceHeaders;
  /** Present when the caller listens while the call runs (see ToolEvents); what it hears is redacted as the output is. */
  events?: ToolEvents;
  /** Absent when `guardrails.secrets` is off for the tool. */
  secrets?: ToolSecrets;
  /** The catalog as the caller sees it, for a tool that finds tools (tool_search); the pipeline always gives it. */
  catalog?: CatalogView;
}

/** The tools GET /tools would list for the calling key (none whose breaker is open): a tool never sees past the request's key. */
export interface CatalogView {
  /** The dialect of the request's calls (POST /execute's `format`, or the one its calls' shape implies; `mcp` over /mcp). */
  format: ToolFormat;
  /** Whether `query` has a word to look for: not empty, blank, punctuation or stop words only. */
  hasSearchWords(query: string): boolean;
  /** The `limit` best matches for `query` but `exclude`, best first, rendered as `GET /tools?format=&q=` renders them, and their names. */
  search(query: string, options: { limit: number; format: ToolFormat; exclude?: string }): Promise<{ tools: unknown[]; names: string[] }>;
}

/** A tool's own answer. The gateway adds status, timing and budgets. */
export interface ToolOutput {
  text: string;
  /** Images, audio and embedded resources, beside `text` (see protocol/content.ts). */
  content?: ContentBlock[];
  data?: unknown;
  /** The tool did only part of the work (e.g. a search stopped at max_results). */
  partial?: boolean;
  /** The tool already cut `text` and stored the whole output; the budget reuses this record. */
  spilled?: { originalBytes: number; record: SpillOutcome };
  /** A failure that still has output (a shell command's non-zero exit): the result is this error carrying `text` and `data`. */
  error?: GatewayError;
}

/** What every tool has: its model-facing schema, the gateway settings and its implementation. */
interface ToolCore {
  name: string;
  description: string;
  parameters: JsonSchema;
  /** The JSON Schema of the tool's structured result (an upstream MCP tool's `outputSchema`): its `data` follows it. */
  outputSchema?: JsonSchema;
  concurrencySafe: boolean;
  /**
   * Whether a call may change something: such calls are replayed by call id and their audit record is stored before they are answered,
   * whatever their concurrency. Absent: `!concurrencySafe`.
   */
  sideEffects?: boolean;
  /** Upper bound for one call; the configured default applies when absent. */
  timeoutMs?: number;
  requiresApproval?: boolean;
  breaker?: Partial<BreakerSettings>;
  rateLimit?: RateLimitSettings;
  /** Arguments that carry file content (Write's `content`), bounded by `maxArgChars` (default the body limit), not `limits.arg_chars`. */
  contentArgs?: readonly string[];
  /** The config's `max_arg_chars`: the limit of the content arguments, or of every string argument when the tool has none. */
  maxArgChars?: number;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}

/** A tool: its core and any of the capabilities (tools/capabilities.ts). */
export type Tool = ToolCore & Partial<ToolCapabilities>;
