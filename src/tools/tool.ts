import type { TraceHeaders } from '../observability/spans.js';
import type { ToolClassification } from '../policy/index.js';
import type { GatewayError } from '../protocol/errors.js';
import type { ToolFormat } from '../protocol/catalog.js';
import type { ContentBlock } from '../protocol/content.js';
import type { SpillOutcome } from '../spill/spill-store.js';
import type { BreakerSettings, RateLimitSettings } from '../shared/settings.js';

/** A JSON Schema object describing a tool's arguments (always `type: "object"`). */
export type JsonSchema = Record<string, unknown>;

/**
 * How a tool takes part in optimistic locking. A `read` tool reports the
 * mtime and size it saw in `data`; a `write` tool accepts `expected_mtime_ms`
 * and `expected_size_bytes`, which the gateway fills from the session's last
 * read of the same path when the caller gave none.
 */
interface LockRole {
  role: 'read' | 'write';
  /** Name of the argument holding the workspace-relative path. */
  pathArg: string;
}

/**
 * What the caller of a call hears while it runs (an `/mcp` client that
 * accepts a stream): an upstream MCP tool's progress and log messages.
 */
export interface ToolEvents {
  /** Present when the caller asked for progress; an upstream MCP tool then asks its server for it. */
  progress?(update: { progress: number; total?: number; message?: string }): void;
  /** A log message (`notifications/message` params) the tool's upstream server sent during the call. */
  log(entry: Record<string, unknown>): void;
}

/** What a tool sees of the call it runs. */
export interface ToolContext {
  /** Aborted at the call's deadline; tools should stop work when it fires. */
  signal: AbortSignal;
  /**
   * Whether `signal` has fired, read without making it: the pipeline makes a
   * call's AbortSignal only when a tool asks for it (it costs more than the
   * rest of a small Read's gates), so a tool that only checks between steps
   * reads this instead.
   */
  readonly aborted: boolean;
  tenant: string;
  sessionId: string;
  callId: string;
  /** Epoch ms after which the result is dropped. */
  deadline: number;
  /**
   * Store a large output in the spill store as it streams in (e.g. an HTTP body over its cap).
   * A store failure resolves as a SpillFailure (the output counted and hashed all the same); only the content's own failure rejects.
   */
  spill(content: string | Buffer | AsyncIterable<Buffer>): Promise<SpillOutcome>;
  /** `limits.image_bytes`: the largest image one block may hold (see tools/content.ts). */
  imageBytes: number;
  /** With tracing on: the call span's `traceparent` (and `tracestate`), for the tool to pass on to its upstream. */
  trace?: TraceHeaders;
  /** Present when the caller listens while the call runs (see ToolEvents). */
  events?: ToolEvents;
  /** The catalog as the caller sees it, for a tool that finds tools (tool_search); the pipeline always gives it. */
  catalog?: CatalogView;
}

/**
 * The tools GET /tools would list for the calling key: its own tools only,
 * none whose breaker is open. A tool gets the view through its context, so
 * it can never see past the key of the request that runs it.
 */
export interface CatalogView {
  /** The dialect of the request's calls (POST /execute's `format`, or the one its calls' shape implies; `mcp` over /mcp). */
  format: ToolFormat;
  /**
   * Whether a search for `query` looks for any word: false for an empty, blank or punctuation-only query, or one of only stop words
   * ("the").
   */
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
  /**
   * The tool ran and its answer is a failure that still has output (a shell
   * command's non-zero exit): the result is an error carrying `text` and `data`.
   */
  error?: GatewayError;
}

/** mtime and size of a file, as optimistic locking compares them. */
export interface FileStampView {
  file_mtime_ms: number;
  file_size_bytes: number;
}

/** What a call would change in a file, for the person who approves it: the file as it is now and as the call would leave it. */
export interface ProposedChange {
  /** Workspace-relative. */
  path: string;
  /** The file's text now; null when there is no file yet. */
  before: string | null;
  after: string;
  /** The file `before` was read from; null when there is none. */
  base: FileStampView | null;
  /** What the diff cannot show (a file there that is not text). */
  note?: string;
}

/** Where a tool's commands run, for GET /tools/{name}: the sandbox in force and the setting that chose it. */
export interface SandboxInfo {
  mode: 'bwrap' | 'none';
  setting: 'auto' | 'required' | 'none';
  /** `auto` on a host where no sandbox works: every command that is not DENY asks for approval. */
  fail_closed?: true;
}

/** Where an upstream tool comes from, and whether it can be reached now. */
interface UpstreamOrigin {
  server: string;
  /** The tool's name on its server (the gateway's name adds the prefix). */
  name: string;
  connected(): boolean;
}

/** A registered tool: its model-facing schema, gateway settings and implementation. */
export interface Tool {
  name: string;
  description: string;
  parameters: JsonSchema;
  concurrencySafe: boolean;
  /** Upper bound for one call; the configured default applies when absent. */
  timeoutMs?: number;
  requiresApproval?: boolean;
  breaker?: Partial<BreakerSettings>;
  rateLimit?: RateLimitSettings;
  lock?: LockRole;
  /**
   * Top-level arguments that carry file content (Write's `content`). They are
   * bounded by `maxArgChars`, by default the body limit, since a file cannot
   * be written in parts; the tool's other arguments stay at `limits.arg_chars`.
   */
  contentArgs?: readonly string[];
  /** The config's `max_arg_chars`: the limit of the content arguments, or of every string argument when the tool has none. */
  maxArgChars?: number;
  /**
   * Where present, the tool's class is the default decision instead of
   * ALLOW: a policy rule with a `when` that matches a part decides that part
   * instead of its class (the most restrictive matching rule wins), and the
   * most restrictive part decides the call. Rules on the whole call can
   * still only narrow it; `requires_approval` keeps it at least ASK;
   * `unknown` is DENY. Synchronous: called for each spelling of the call.
   */
  classify?(args: Record<string, unknown>): ToolClassification;
  /**
   * Other spellings of the same arguments, e.g. a path in its
   * workspace-relative form, with and without symbolic links resolved. The
   * permission gate applies the rules to each as well as to the arguments as
   * sent, and the strictest decision wins, so no other spelling of a path,
   * nor a link to it, gets past a rule on it. The first is the canonical
   * form: the Read lock cache (gate 5) is keyed by it, and so is an approval
   * for a tool that classifies its arguments (Bash: 'r''m' and rm are one
   * request). Called once per call, before the permission gate; must not throw.
   * The pipeline runs the call with this very arguments object (gates add to it
   * in place), so a tool may keep what it resolved for it and run on that: the
   * built-in file tools run on the file the policy judged.
   */
  canonicalArgs?(args: Record<string, unknown>): Promise<Array<Record<string, unknown>>>;
  /**
   * When the output budget cut this tool's text after whole lines: how the
   * model gets the rest with another call of this tool (Read: the `offset`
   * to continue from). `kept` is what the model sees, `rest` what was cut
   * off. Without it the cut names the `/outputs/{id}` url only.
   */
  resumeHint?: (kept: string, rest: string) => string | undefined;
  /** The upstream MCP server the tool belongs to, for GET /tools/{name}; absent for the gateway's own tools. */
  upstream?: UpstreamOrigin;
  /** Bash: the sandbox its commands run in, for GET /tools/{name}. */
  sandbox?: SandboxInfo;
  /**
   * Write and Edit: the change a call would make to the file as it is now,
   * for an approval request's preview. Throws a GatewayError when the call
   * would fail as things are (old_string not found…). Never writes.
   */
  proposeChange?(args: Record<string, unknown>): Promise<ProposedChange>;
  /**
   * With proposeChange: the file at a workspace-relative path as it is now, null when there is none, to tell a person the preview is stale.
   */
  stampNow?(path: string): Promise<FileStampView | null>;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}
