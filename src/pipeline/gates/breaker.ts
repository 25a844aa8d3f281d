import { GatewayError } from '../../protocol/errors.js';
import type { RegisteredTool } from '../../registry/registry.js';
import { scopeOf } from '../../state/breaker-scope.js';
import type { AdmitRequest, SettleRequest } from '../../state/state-store.js';
import { callTimeout } from '../timeout.js';
import type { Caller, ExecContext, Gate, PipelineDeps, PlannedCall } from '../types.js';

// The breaker's transitions are the store's: state/memory/breaker.ts and state/redis/lua/includes/breaker.lua.

/** Whether one breaker of the tool serves every tenant: the tool's `breaker.shared`, else `defaults.per_tenant_breakers` off. */
export function sharedBreaker(entry: RegisteredTool, deps: Pick<PipelineDeps, 'config'>): boolean {
  return entry.breaker.shared ?? !deps.config.defaults.per_tenant_breakers;
}

/** Each tenant's calls count against the tool's breaker of their own, unless the breaker is shared (sharedBreaker). */
export function breakerScope(entry: RegisteredTool, caller: Caller, deps: PipelineDeps): string {
  return scopeOf(entry.name, sharedBreaker(entry, deps) ? null : caller.tenant);
}

/** What admission asks of the breaker for a call: its scope and the tool's breaker settings. */
export function breakerPart(entry: RegisteredTool, caller: Caller, deps: PipelineDeps): AdmitRequest['breaker'] {
  return {
    scope: breakerScope(entry, caller, deps),
    failureThreshold: entry.breaker.failureThreshold,
    recoveryMs: entry.breaker.recoveryMs,
  };
}

/** Open, or half open with its probe still out: retryable once the breaker lets a call through again. */
export function circuitOpenError(call: PlannedCall, retryAfterMs: number): GatewayError {
  return new GatewayError('CIRCUIT_OPEN', {
    message: `${call.name} is failing and its circuit is open.`,
    retryAfterMs,
    suggestion: 'Use another tool for now, or retry after retry_after_ms.',
  });
}

/** An MCP server that answered (its tool's `isError`, or a refused request: tools/mcp/failure.ts): an answer, like an HTTP 4xx. */
const ANSWERED_UPSTREAM = new Set(['tool_error', 'rejected']);

/**
 * Only the tool's own malfunction counts: timeouts, crashes, upstream 5xx and unreachable upstreams. Caller mistakes (NOT_FOUND,
 * CONFLICT, upstream 4xx and 429, an MCP tool's error) and answers (COMMAND_FAILED) do not; nor does a timeout the caller cut
 * (the request's `timeout_ms`, or the call's own: `details.lowered_by_arguments`), or one request could open a shared breaker.
 */
export function breakerOutcome(error: GatewayError | undefined, callerCutTimeout = false): 'success' | 'failure' | 'neutral' {
  if (!error) return 'success';
  switch (error.code) {
    case 'TIMEOUT':
      return callerCutTimeout || (error.details as { lowered_by_arguments?: unknown } | undefined)?.lowered_by_arguments === true
        ? 'neutral'
        : 'failure';
    case 'EXECUTION_FAILED':
      return 'failure';
    case 'UPSTREAM_ERROR': {
      const { status, reason } = (error.details ?? {}) as { status?: unknown; reason?: unknown };
      if (typeof reason === 'string' && ANSWERED_UPSTREAM.has(reason)) return 'neutral';
      return typeof status === 'number' && status < 500 ? 'neutral' : 'failure';
    }
    default:
      return 'neutral';
  }
}

/** A ran call's outcome for its breaker, and whether it was the half-open breaker's probe. */
function breakerSettlePart(
  call: PlannedCall,
  error: GatewayError | undefined,
  probe: boolean,
  ctx: ExecContext,
  deps: PipelineDeps,
): SettleRequest['breaker'] {
  const entry = call.entry!;
  return {
    scope: breakerScope(entry, ctx.caller, deps),
    outcome: breakerOutcome(error, callTimeout(call, ctx) < entry.timeoutMs),
    probe,
    failureThreshold: entry.breaker.failureThreshold,
    recoveryMs: entry.breaker.recoveryMs,
  };
}

/** Gate 6: an open breaker stops the call at admission; gate 9 counts the outcome of a call that ran. */
export const breakerGate: Gate = {
  name: 'breaker',
  admit(call, request, ctx, deps) {
    request.breaker = breakerPart(call.entry!, ctx.caller, deps);
  },
  answer: (call, admission) => (admission.outcome === 'circuit_open' ? circuitOpenError(call, admission.retryAfterMs) : undefined),
  settle({ call, error, outcome }, request, ctx, deps) {
    request.breaker = breakerSettlePart(call, error, outcome.probe, ctx, deps);
  },
};
