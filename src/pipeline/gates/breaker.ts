import type { GatewayError } from '../../protocol/errors.js';
import type { RegisteredTool } from '../../registry/registry.js';
import type { Caller, PipelineDeps } from '../types.js';

/** Breakers are per tool across tenants unless the config makes them per tenant. */
export function breakerScope(entry: RegisteredTool, caller: Caller, deps: PipelineDeps): string {
  return scopeOf(entry.name, deps.config.defaults.per_tenant_breakers ? caller.tenant : null);
}

/** The store's name for a tool's breaker: the tenant's own, or the shared one (`null`). */
export function scopeOf(tool: string, tenant: string | null): string {
  return tenant === null ? tool : `${tenant}:${tool}`;
}

/**
 * Gate 9's breaker half: only the tool's own malfunction counts. Caller
 * mistakes (NOT_FOUND, CONFLICT, upstream 4xx, upstream 429) leave the count
 * alone; timeouts, crashes, upstream 5xx and unreachable upstreams are failures.
 * A timeout the caller cut below the tool's own (`timeout_ms` on the request)
 * is the caller's choice, not the tool's fault: counted, one request could
 * open a shared breaker for every tenant.
 */
export function breakerOutcome(error: GatewayError | undefined, callerCutTimeout = false): 'success' | 'failure' | 'neutral' {
  if (!error) return 'success';
  switch (error.code) {
    case 'TIMEOUT':
      return callerCutTimeout ? 'neutral' : 'failure';
    case 'EXECUTION_FAILED':
      return 'failure';
    case 'UPSTREAM_ERROR': {
      const status = (error.details as { status?: unknown } | undefined)?.status;
      return typeof status === 'number' && status < 500 ? 'neutral' : 'failure';
    }
    default:
      return 'neutral';
  }
}
