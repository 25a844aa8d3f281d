import type { SpanAttributes, TraceSpan } from '../observability/spans.js';
import type { CallResult, VisiblePayload } from '../protocol/result.js';
import type { ExecContext, PlannedCall } from './types.js';

const NAME_MAX = 100;

export function callSpanName(call: PlannedCall): string {
  return `execute_tool ${call.name.slice(0, NAME_MAX)}`;
}

/** How far a call got at the permission gate and with its approval, from what the gates left on it. */
function permissionOf(call: PlannedCall, code: string | undefined): SpanAttributes {
  if (call.decision === 'ask') {
    const approval = code === 'APPROVAL_REQUIRED' ? 'pending' : code === 'PERMISSION_DENIED' ? 'denied' : 'approved';
    return { 'toolgate.permission': 'ask', 'toolgate.approval': approval };
  }
  if (call.decision === 'allow') return { 'toolgate.permission': 'allow' };
  return code === 'PERMISSION_DENIED' ? { 'toolgate.permission': 'deny' } : {};
}

/** The breaker as the call met it: open (refused), half_open (the probe), closed (ran); absent when the call stopped before it. */
function breakerOf(code: string | undefined, ran: boolean, probe: boolean): string | undefined {
  if (code === 'CIRCUIT_OPEN') return 'open';
  if (!ran) return undefined;
  return probe ? 'half_open' : 'closed';
}

interface CallOutcome {
  result: CallResult;
  payload: VisiblePayload;
  /** Whether the call reached its tool (gate 8), and whether as the breaker's probe. */
  ran: boolean;
  probe: boolean;
}

/** Close a call's span with what every gate decided for it; never its arguments or output, only their sizes. */
export function endCallSpan(span: TraceSpan, call: PlannedCall, outcome: CallOutcome, ctx: ExecContext, endTime?: number): void {
  const { result, payload } = outcome;
  const code = result.error?.code;
  const truncated = payload.truncated;
  span.set({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': call.name.slice(0, NAME_MAX),
    'gen_ai.tool.call.id': call.id,
    'gen_ai.response.model': ctx.model,
    'toolgate.session_id': ctx.sessionId,
    'toolgate.tenant': ctx.caller.tenant,
    'toolgate.user': ctx.caller.user,
    'toolgate.mcp_server': call.entry?.tool.upstream?.server,
    'toolgate.status': result.status,
    'error.type': code,
    ...permissionOf(call, code),
    'toolgate.replayed': result.replayed,
    'toolgate.breaker': breakerOf(code, outcome.ran, outcome.probe),
    'toolgate.rate_limited': code === 'RATE_LIMITED',
    'toolgate.timeout': code === 'TIMEOUT',
    'toolgate.truncated': truncated !== null,
    'toolgate.spilled': truncated !== null && truncated.url !== null,
    'toolgate.output_bytes': result.stats.output_bytes,
    'toolgate.duration_ms': result.stats.time_ms,
  });
  span.end(code, endTime);
}
