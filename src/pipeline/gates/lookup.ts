import { GatewayError } from '../../protocol/errors.js';
import type { ExecContext, Gate, PipelineDeps, PlannedCall } from '../types.js';

/**
 * Gate 2: the tool exists and the caller's key may use it. Both failures
 * answer alike, so a key cannot learn which tools exist beyond its own.
 */
function findTool(call: PlannedCall, ctx: ExecContext, deps: PipelineDeps): GatewayError | undefined {
  const entry = deps.registry.get(call.name);
  if (entry && ctx.caller.allows(entry.name)) {
    call.entry = entry;
    return undefined;
  }
  const available = deps.registry
    .list()
    .filter((e) => ctx.caller.allows(e.name))
    .map((e) => e.name);
  return new GatewayError('UNKNOWN_TOOL', {
    message: `No tool named ${JSON.stringify(call.name.slice(0, 100))}.`,
    details: { available },
    suggestion: 'Call one of the tools in details.available.',
  });
}

export const lookupGate: Gate = { name: 'lookup', check: findTool };
