import { redactForLog } from '../observability/logger.js';
import type { TraceSpan } from '../observability/spans.js';
import type { VisiblePayload } from '../protocol/result.js';
import { callSpanName, endCallSpan } from './call-span.js';
import type { Finished } from './run-call.js';
import type { ExecContext, PipelineDeps } from './types.js';

/** A call's span, ended with its gate outcomes: its own, or one from when the request's calls arrived. */
function traceCall(finished: Finished, payload: VisiblePayload, ctx: ExecContext, span: TraceSpan, arrived: number): void {
  const { call, result, outcome } = finished;
  const own = finished.span ?? span.child(callSpanName(call), undefined, arrived);
  endCallSpan(own, call, { result, payload, ran: outcome !== undefined, probe: outcome?.probe === true }, ctx, finished.ended ?? arrived);
}

/** A request's calls once answered: metrics, one log line each (`bytes`: the sha256 of what the model sees), spans. */
export function reportCalls(
  finished: readonly Finished[],
  payloads: readonly VisiblePayload[],
  ctx: ExecContext,
  deps: PipelineDeps,
  bytes: readonly string[],
  arrived: number,
): void {
  finished.forEach(({ call, result, redactions }, i) => {
    const code = result.error?.code ?? '';
    for (const [kind, count] of Object.entries(redactions ?? {})) deps.metrics.redactions.inc({ tool: call.name, kind }, count);
    deps.metrics.toolCalls.inc({ tool: call.entry ? call.name : '(unknown)', status: result.status, code });
    if (call.entry && !result.replayed) deps.metrics.toolDuration.observe({ tool: call.name }, result.stats.time_ms / 1000);
    if (payloads[i]!.truncated) deps.metrics.truncations.inc();
    ctx.log.info(
      {
        session_id: ctx.sessionId,
        tenant: ctx.caller.tenant,
        call_id: call.id,
        tool: call.name.slice(0, 100),
        mcp_server: call.entry?.tool.upstream?.server,
        arguments: call.args === undefined ? undefined : redactForLog(deps.guardrails.records.redactValue(call.args, {})),
        result_sha256: bytes[i],
        status: result.status,
        error_code: code || undefined,
        replayed: result.replayed,
        duration_ms: result.stats.time_ms,
        redactions,
        model: ctx.model,
      },
      'tool call',
    );
    if (ctx.span) traceCall(finished[i]!, payloads[i]!, ctx, ctx.span, arrived);
  });
}
