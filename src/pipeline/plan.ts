import type { NormalizedCall } from '../protocol/calls.js';
import { lookupGate } from './gates/lookup.js';
import { parseGate } from './gates/parse.js';
import { permissionGate } from './gates/permission.js';
import { fingerprintOf } from './gates/replay.js';
import { validateGate } from './gates/validate.js';
import type { ExecContext, LocalGate, PipelineDeps, PlannedCall } from './types.js';

/** Gates 1-4, which need no shared state, in the contract's order. */
const LOCAL_GATES: readonly LocalGate[] = [parseGate, lookupGate, validateGate, permissionGate];

/** Turn the parsed calls into a plan; a call stopped by a local gate carries its failure. */
export function planCalls(calls: readonly NormalizedCall[], ctx: ExecContext, deps: PipelineDeps): PlannedCall[] {
  return calls.map((c) => {
    const call: PlannedCall = { index: c.index, id: c.id, name: c.name, rawArguments: c.rawArguments };
    let sent: Record<string, unknown> | undefined;
    for (const gate of LOCAL_GATES) {
      const failure = gate(call, ctx, deps);
      if (failure) {
        call.failure = failure;
        return call;
      }
      // The arguments as the caller sent them: the validate gate may drop strict-mode nulls from call.args.
      if (gate === parseGate) sent = call.args;
    }
    // Only call-id replay (tools that are not concurrency-safe) and approvals use the fingerprint;
    // hashing the canonical arguments of every read-only call was measurable work on the hot path.
    if (!call.entry!.concurrencySafe || call.decision === 'ask') call.fingerprint = fingerprintOf(call.name, sent!);
    return call;
  });
}
