import type { TraceHeaders, TraceSpan } from '../observability/spans.js';
import type { CatalogView, ToolContext, ToolEvents } from '../tools/tool.js';
import { catalogView } from './catalog.js';
import type { CallAbort } from './timeout.js';
import type { ExecContext, PipelineDeps } from './types.js';

/**
 * A tool's context for one call. A class, not an object literal: the lazy
 * fields are prototype getters, so each call makes a plain object of one
 * shared shape, where a literal with accessors costs V8 a slow object per call.
 */
export class CallContext implements ToolContext {
  readonly tenant: string;
  readonly sessionId: string;
  readonly deadline: number;
  readonly imageBytes: number;
  #catalog: CatalogView | undefined;

  constructor(
    readonly callId: string,
    timeoutMs: number,
    readonly spill: ToolContext['spill'],
    private readonly abort: CallAbort,
    private readonly span: TraceSpan | undefined,
    private readonly ctx: ExecContext,
    private readonly deps: PipelineDeps,
  ) {
    this.tenant = ctx.caller.tenant;
    this.sessionId = ctx.sessionId;
    this.deadline = Date.now() + timeoutMs;
    this.imageBytes = deps.config.limits.image_bytes;
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

  /** Only an /mcp call that streams has them. */
  get events(): ToolEvents | undefined {
    return this.ctx.events;
  }

  /** Only tool_search reads it. */
  get catalog(): CatalogView {
    return (this.#catalog ??= catalogView(this.ctx, this.deps));
  }
}
