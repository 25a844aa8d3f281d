import { GatewayError } from '../../protocol/errors.js';
import type { RegisteredTool } from '../../registry/registry.js';
import { scopeOf } from '../../state/breaker-scope.js';
import type { AdmitRequest, SettleRequest } from '../../state/state-store.js';
import { callTimeout } from '../timeout.js';
import type { Caller, ExecContext, PipelineDeps, PlannedCall } from '../types.js';

/*
 * Gate 6 (breaker) and gate 9's breaker half: which breaker a call counts
 * against, what an open one means for the call, and which outcomes count.
 * The transitions themselves are the store's: state/memory/breaker.ts and
 * state/redis/lua/includes/breaker.lua.
 */

/** Breakers are per tool across tenants unless the config makes them per tenant. */
export function breakerScope(entry: RegisteredTool, caller: Caller, deps: PipelineDeps): string {
  return scopeOf(entry.name, deps.config.defaults.per_tenant_breakers ? caller.tenant : null);
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

/**
 * An MCP server that answered: its tool reported an error (`isError`) or the
 * server refused the request (tools/mcp/failure.ts). Like an HTTP 4xx, an
 * answer, not an outage.
 */
const ANSWERED_UPSTREAM = new Set(['tool_error', 'rejected']);

/**
 * Gate 9's breaker half: only the tool's own malfunction counts. Caller
 * mistakes (NOT_FOUND, CONFLICT, upstream 4xx, upstream 429, an MCP tool's
 * error result) and answers (COMMAND_FAILED: a failing `grep` is an answer,
 * not an outage) leave the count alone; timeouts, crashes, upstream 5xx and
 * unreachable upstreams are failures.
 * A timeout the caller cut below the tool's own (`timeout_ms` on the request)
 * is the caller's choice, not the tool's fault: counted, one request could
 * open a shared breaker for every tenant. So is one a call's own arguments
 * cut (Bash's `timeout_ms`: `details.lowered_by_arguments`).
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

/**
 * What settling asks of the breaker for a call that ran: its outcome
 * (breakerOutcome; a deadline the request's `timeout_ms` lowered is the
 * caller's cut), and whether it was the half-open breaker's probe.
 */
export function breakerSettlePart(
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
