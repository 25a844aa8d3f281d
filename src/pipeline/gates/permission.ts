import { GatewayError } from '../../protocol/errors.js';
import type { Workspace } from '../../tools/workspace-types.js';
import type { ExecContext, Gate, PipelineDeps, PlannedCall } from '../types.js';

/** The other spellings of the arguments, found once for this gate, the lock and approvals, where one of them reads them. */
function spellingsOf(call: PlannedCall, ctx: ExecContext, deps: PipelineDeps): Promise<void> | undefined {
  const tool = call.entry?.tool;
  if (call.failure || !tool?.canonicalArgs || (!tool.lock && !tool.classify && !deps.policy.readsArgs(call.name))) return undefined;
  let ws: Workspace;
  try {
    ws = deps.workspaces.of(ctx.caller.tenant);
  } catch (err) {
    call.failure = err as GatewayError;
    return undefined;
  }
  return tool.canonicalArgs(call.args!, ws).then((spellings) => {
    call.spellings = spellings;
  });
}

/** DENY stops the call here; ASK is settled with the approval store at admission (gates/approval.ts). */
function decide(call: PlannedCall, ctx: ExecContext, deps: PipelineDeps): GatewayError | undefined {
  const entry = call.entry!;
  const { tool } = entry;
  // A tool's class may depend on the caller's files (Bash without a sandbox): it judges in the caller's tenant's workspace.
  const classify = tool.classify && ((args: Record<string, unknown>) => tool.classify!(args, deps.workspaces.of(ctx.caller.tenant)));
  // The rules also see the arguments as the tool will understand them (a path in its canonical spellings); the stricter decision wins.
  const verdict = deps.policy.decideCall({
    tool: entry.name,
    args: call.args!,
    spellings: call.spellings,
    requiresApproval: entry.requiresApproval,
    classify,
  });
  call.decision = verdict.decision;
  call.policyReason = verdict.reason;
  call.readOnly = verdict.readOnly;
  if (verdict.decision === 'deny') {
    return new GatewayError('PERMISSION_DENIED', {
      message: `The policy denies this call to ${entry.name} (${verdict.reason}).`,
      suggestion: 'Do not retry this call; choose another approach or ask the user.',
    });
  }
  return undefined;
}

/** Gate 4: ALLOW, ASK or DENY, judged on the arguments and their other spellings. */
export const permissionGate: Gate = { name: 'permission', prepare: spellingsOf, check: decide };
