import type { TraceHeaders, TraceSpan } from '../observability/spans.js';
import type { Credentials, ToolCaller } from '../tools/credentials.js';
import type { CatalogView, FileLocks, ToolContext, ToolEvents, ToolSecrets } from '../tools/tool.js';
import type { CallGuard } from './guard.js';
import type { Workspace } from '../tools/workspace-types.js';
import { createFileLocks } from './file-locks.js';
import type { CallAbort } from './timeout.js';
import type { ExecContext, PipelineDeps, PlannedCall } from './types.js';

/** A tool's context for one call: a class, so the lazy fields are shared prototype getters. */
export class CallContext implements ToolContext {
  readonly tenant: string;
  readonly sessionId: string;
  readonly callId: string;
  private readonly tool: string;
  readonly deadline: number;
  readonly readOnly: boolean;
  readonly imageBytes: number;
  readonly spill: ToolContext['spill'];
  readonly secrets: ToolSecrets | undefined;
  #catalog: CatalogView | undefined;
  #events: ToolEvents | undefined;
  #caller: ToolCaller | undefined;

  constructor(
    call: PlannedCall,
    private readonly guard: CallGuard,
    private readonly abort: CallAbort,
    private readonly span: TraceSpan | undefined,
    private readonly ctx: ExecContext,
    private readonly deps: PipelineDeps,
  ) {
    this.tenant = ctx.caller.tenant;
    this.sessionId = ctx.sessionId;
    this.callId = call.id;
    this.tool = call.name;
    this.deadline = abort.deadline;
    this.readOnly = call.readOnly === true;
    this.imageBytes = deps.config.limits.image_bytes;
    this.spill = guard.spill;
    this.secrets = guard.secrets;
  }

  /** Made only for a tool that reads it (see runWithTimeout). */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get aborted(): boolean {
    return this.abort.aborted;
  }

  /** Rendered only for a tool that passes them on. */
  get trace(): TraceHeaders | undefined {
    return this.span?.headers;
  }

  /** Only an /mcp call that streams has them; redacted as the call's output is. */
  get events(): ToolEvents | undefined {
    if (!this.ctx.events) return undefined;
    return (this.#events ??= this.guard.events(this.ctx.events));
  }

  /** Only Write and Edit take one. */
  get fileLocks(): FileLocks {
    return createFileLocks({ state: this.deps.state, clock: this.deps.clock, tenant: this.tenant, call: this });
  }

  /** Only the tools that touch files read it. */
  get workspace(): Workspace {
    return this.deps.workspaces.of(this.tenant);
  }

  get caller(): ToolCaller {
    const { keyId, user, subjectToken } = this.ctx.caller;
    return (this.#caller ??= { tenant: this.tenant, keyId, user, ...(subjectToken && { subjectToken }) });
  }

  /** Only a tool that authenticates upstream asks them. */
  get credentials(): Credentials {
    return this.deps.credentials.for(this.tool, this.caller);
  }

  /** Only tool_search reads it. */
  get catalog(): CatalogView {
    this.#catalog ??= this.deps.catalog.view(this.ctx.caller, this.ctx.format ?? 'openai', this.ctx.log);
    return this.#catalog;
  }
}
