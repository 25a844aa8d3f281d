import type { RedactionCounts } from '../guardrails/index.js';
import type { TraceSpan } from '../observability/spans.js';
import { GatewayError, isGatewayError } from '../protocol/errors.js';
import type { CallResult } from '../protocol/result.js';
import type { Tool, ToolOutput } from '../tools/tool.js';
import { applyCallBudget, payloadBytes } from './budget.js';
import { CallContext } from './call-context.js';
import { errorResult, outputResult, withPayload } from './call-result.js';
import { callSpanName } from './call-span.js';
import { callGuard } from './guard.js';
import { contentBytes, fitContent, notImages } from './content-budget.js';
import { spillFor } from './spill-health.js';
import { callTimeout, runWithTimeout } from './timeout.js';
import type { AdmitOutcome, ExecContext, PipelineDeps, PlannedCall } from './types.js';

/** A finished call, before the batch budget and rendering. */
export interface Finished {
  call: PlannedCall;
  result: CallResult;
  /** Set for executed calls; the error a tool failed with, for logs and the breaker. */
  error?: GatewayError;
  /** The payload as serialized by the per-call budget, when it kept it whole (see applyCallBudget). */
  json?: string;
  /** With tracing on, an executed call's span and when its tool and per-call budget were done (epoch ms). */
  span?: TraceSpan;
  ended?: number;
  /** What the guardrails redacted from an executed call's output, by kind. */
  redactions?: RedactionCounts;
  /** An executed call's admission (whether it was the breaker's probe). */
  outcome?: AdmitOutcome & { kind: 'run' };
}

/** A call its tool ran: what the tool answered, unless it threw or ran out of time. */
type Ran = Finished & { output?: ToolOutput };

function asGatewayError(err: unknown, call: PlannedCall, ctx: ExecContext): GatewayError {
  if (isGatewayError(err)) return err;
  ctx.log.error({ err, call_id: call.id, tool: call.name }, 'tool threw an unexpected error');
  return new GatewayError('EXECUTION_FAILED', { message: `${call.name} failed unexpectedly.` });
}

/** Gate 8: run the tool under its deadline; then the per-call budget. With tracing on, both in the call's span. */
export function runCall(call: PlannedCall, ctx: ExecContext, deps: PipelineDeps): Promise<Ran> {
  if (!ctx.span) return runTool(call, ctx, deps, undefined);
  const span = ctx.span.child(callSpanName(call));
  return runTool(call, ctx, deps, span).then((finished) => Object.assign(finished, { span, ended: Date.now() }));
}

async function runTool(call: PlannedCall, ctx: ExecContext, deps: PipelineDeps, span: TraceSpan | undefined): Promise<Ran> {
  const started = performance.now();
  const timeoutMs = callTimeout(call, ctx);
  const spill = spillFor(deps, ctx.caller.tenant, ctx.log);
  const guard = callGuard(call.name, spill, deps);
  try {
    const output = await runWithTimeout(
      timeoutMs,
      (abort) => call.entry!.tool.run(call.args!, new CallContext(call, guard, abort, span, ctx, deps)),
      ctx.cancel,
    );
    const { result, redactions } = guard.redact(outputResult(call, output, Math.round(performance.now() - started)));
    return { call, ...(await withinCallBudget(result, call.entry!.tool, spill, deps)), output, error: output.error, redactions };
  } catch (err) {
    const error = asGatewayError(err, call, ctx);
    return { call, ...guard.redact(errorResult(call, error, Math.round(performance.now() - started))), error };
  }
}

/** The per-call budget, images aside (see notImages); a spill store failure cuts the payload all the same, never turns it into an error. */
async function withinCallBudget(
  result: CallResult,
  tool: Tool,
  spill: ReturnType<typeof spillFor>,
  deps: PipelineDeps,
): Promise<{ result: CallResult; json?: string }> {
  const budget = deps.config.limits.call_budget_bytes;
  if (result.content) result = withPayload(result, (await fitContent([result], [payloadBytes(result)], budget, spill, notImages))[0]!);
  const budgeted = await applyCallBudget(result, budget - contentBytes(result, notImages), spill, tool.resumeHint);
  if (budgeted.json !== undefined) return { result, json: budgeted.json };
  return { result: withPayload(result, budgeted.payload) };
}
