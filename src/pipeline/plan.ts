import type { NormalizedCall } from '../protocol/calls/index.js';
import { auditGate } from './gates/audit.js';
import { lookupGate } from './gates/lookup.js';
import { parseGate } from './gates/parse.js';
import { permissionGate } from './gates/permission.js';
import { fingerprintOf } from './gates/replay.js';
import { validateGate } from './gates/validate.js';
import type { ExecContext, LocalGate, PipelineDeps, PlannedCall } from './types.js';

/**
 * Gates 1-3, which need no shared state, in order (parse, lookup, validate; between the last two, the audit trail's refusal while it cannot
 * be written); gate 4 (permission) follows once the spellings are known.
 */
const BEFORE_PERMISSION: readonly LocalGate[] = [parseGate, lookupGate, auditGate, validateGate];

interface Planning {
  call: PlannedCall;
  /** The arguments as the caller sent them: the validate gate may drop strict-mode nulls from call.args. */
  sent?: Record<string, unknown>;
}

function throughLocalGates(c: NormalizedCall, ctx: ExecContext, deps: PipelineDeps): Planning {
  const planning: Planning = { call: { index: c.index, id: c.id, name: c.name, rawArguments: c.rawArguments } };
  for (const gate of BEFORE_PERMISSION) {
    const failure = gate(planning.call, ctx, deps);
    if (failure) {
      planning.call.failure = failure;
      break;
    }
    if (gate === parseGate) planning.sent = planning.call.args;
  }
  return planning;
}

/**
 * The other spellings of a call's arguments, found once (a path's symlinks take the filesystem) and shared by the
 * permission gate, the lock (gate 5) and approvals. Only where one of them reads them: a tool with a lock role, a tool that
 * classifies its arguments (its approvals are bound to the canonical spelling), or a rule on its arguments.
 */
function spellingsOf(call: PlannedCall, deps: PipelineDeps): Promise<void> | undefined {
  const tool = call.entry?.tool;
  if (call.failure || !tool?.canonicalArgs || (!tool.lock && !tool.classify && !deps.policy.readsArgs(call.name))) return undefined;
  return tool.canonicalArgs(call.args!).then((spellings) => {
    call.spellings = spellings;
  });
}

/** Turn the parsed calls into a plan; a call stopped by a local gate carries its failure. */
export async function planCalls(calls: readonly NormalizedCall[], ctx: ExecContext, deps: PipelineDeps): Promise<PlannedCall[]> {
  const planned = calls.map((c) => throughLocalGates(c, ctx, deps));
  const pending = planned.map(({ call }) => spellingsOf(call, deps)).filter((p) => p !== undefined);
  if (pending.length > 0) await Promise.all(pending);
  return planned.map(({ call, sent }) => {
    if (call.failure) return call;
    const failure = permissionGate(call, ctx, deps);
    if (failure) {
      call.failure = failure;
      return call;
    }
    // Only call-id replay (tools that are not concurrency-safe) and approvals use the fingerprint;
    // hashing the canonical arguments of every read-only call was measurable work on the hot path.
    if (!call.entry!.concurrencySafe || call.decision === 'ask') call.fingerprint = fingerprintOf(call.name, sent!);
    // Another spelling of the same shell command ('r''m' for rm) is the same request to the human who approves it.
    const canonical = call.spellings?.[0];
    if (call.decision === 'ask' && call.entry!.tool.classify && canonical) call.approvalFingerprint = fingerprintOf(call.name, canonical);
    return call;
  });
}
