import type { SecretScanner } from '../guardrails/index.js';
import type { ToolClassification } from '../policy/index.js';
import type { Workspace } from './workspace-types.js';

/**
 * How a tool takes part in optimistic locking. A `read` tool reports the mtime and size it saw in `data`; a `write` tool accepts
 * `expected_mtime_ms` and `expected_size_bytes`, which the gateway fills from the session's last read of the same path when the caller gave
 * none.
 */
interface LockRole {
  role: 'read' | 'write';
  /** Name of the argument holding the workspace-relative path. */
  pathArg: string;
}

/** Takes part in optimistic locking of workspace files (Read, Write, Edit). */
interface FileLocking {
  lock: LockRole;
}

/** Judges its own arguments (Bash). */
interface Classifying {
  /**
   * Where present, the tool's class is the default decision instead of ALLOW: a policy rule with a `when` that matches a part decides that
   * part instead of its class (the most restrictive matching rule wins), and the most restrictive part decides the call. Rules on the whole
   * call can still only narrow it; `requires_approval` keeps it at least ASK; `unknown` is DENY. Synchronous: called for each spelling of
   * the call. `ws` is the caller's tenant's workspace, for a class that depends on its files (Bash without a sandbox checks where operands
   * lead on disk).
   */
  classify(args: Record<string, unknown>, ws?: Workspace): ToolClassification;
}

/** Has other spellings of its arguments (the built-in file tools, Bash). */
interface Canonicalizing {
  /**
   * Other spellings of the same arguments, e.g. a path in its workspace-relative form, with and without symbolic links resolved. The
   * permission gate applies the rules to each as well as to the arguments as sent, and the strictest decision wins, so no other spelling of
   * a path, nor a link to it, gets past a rule on it. The first is the canonical form: the Read lock cache (gate 5) is keyed by it, and so
   * is an approval for a tool that classifies its arguments (Bash: 'r''m' and rm are one request). Called once per call, before the
   * permission gate; must not throw. The pipeline runs the call with this very arguments object (gates add to it in place), so a tool may
   * keep what it resolved for it and run on that: the built-in file tools run on the file the policy judged. `ws` is the caller's tenant's
   * workspace, as the call gets it.
   */
  canonicalArgs(args: Record<string, unknown>, ws: Workspace): Promise<Array<Record<string, unknown>>>;
}

/** Tells the model how to get the rest of a cut output (Read). */
interface Resumable {
  /**
   * When the output budget cut this tool's text after whole lines: how the model gets the rest with another call of this tool (Read: the
   * `offset` to continue from). `kept` is what the model sees, `rest` what was cut off. Without it the cut names the `/outputs/{id}` url
   * only.
   */
  resumeHint: (kept: string, rest: string) => string | undefined;
}

/** Comes from an upstream MCP server. */
interface FromUpstream {
  /** The upstream MCP server the tool belongs to, for GET /tools/{name}; absent for the gateway's own tools. */
  upstream: UpstreamOrigin;
}

/** Runs commands in a sandbox (Bash). */
interface Sandboxed {
  /** Bash: the sandbox its commands run in, for GET /tools/{name}. */
  sandbox: SandboxInfo;
}

/** Shows the change a call would make, for an approval's preview (Write, Edit). */
interface ChangePreview {
  /**
   * Write and Edit: the change a call would make to the file as it is now, for an approval request's preview. Throws a GatewayError when
   * the call would fail as things are (old_string not found…). Never writes. `ws` is the caller's tenant's workspace; `scanner` is the
   * tool's guardrails, for Edit to match as its call would.
   */
  proposeChange(args: Record<string, unknown>, ws: Workspace, scanner?: SecretScanner): Promise<ProposedChange>;
  /**
   * With proposeChange: the file at a path relative to `ws` as it is now, null when there is none, to tell a person the preview is stale.
   */
  stampNow(path: string, ws: Workspace): Promise<FileStampView | null>;
}

/**
 * What a tool may opt into beyond its core: each is present on the tools that have it, absent on the rest, and `tool.<capability>` being
 * there is how the gateway asks.
 */
export type ToolCapabilities = FileLocking & Classifying & Canonicalizing & Resumable & FromUpstream & Sandboxed & ChangePreview;

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

/**
 * Which ALLOW table is in force (docs/bash.md): `sandbox` where commands run in bubblewrap (a misjudged command is contained), `none` where
 * there is no wall (only the inert core).
 */
export const tierOf = (sandbox: SandboxInfo): 'sandbox' | 'none' => (sandbox.mode === 'bwrap' ? 'sandbox' : 'none');

/** Where an upstream tool comes from, and whether it can be reached now. */
interface UpstreamOrigin {
  server: string;
  /** The tool's name on its server (the gateway's name adds the prefix). */
  name: string;
  connected(): boolean;
}
