import type { FastifyBaseLogger } from 'fastify';
import type { RegisteredTool } from '../registry/registry.js';
import type { CircuitStatus } from '../state/state-store.js';
import { breakerScope } from './gates/breaker.js';
import { withState } from './state-health.js';
import type { Caller, PipelineDeps } from './types.js';

/** Each tool's breaker as the caller sees it; with the store down every breaker reads closed, as for execution. */
export async function circuitsFor(
  entries: readonly RegisteredTool[],
  caller: Caller,
  deps: PipelineDeps,
  log?: FastifyBaseLogger,
): Promise<CircuitStatus[]> {
  const scopes = entries.map((e) => breakerScope(e, caller, deps));
  return withState(
    deps,
    log,
    () => deps.state.circuits(scopes, deps.clock.now()),
    () => scopes.map((scope) => ({ scope, state: 'closed', failures: 0, reopens_at: null })),
  );
}
