import { strictest } from '../../policy/index.js';
import { GatewayError } from '../../protocol/errors.js';
import type { LocalGate } from '../types.js';

/** Gate 4: DENY stops the call here; ASK is settled with the approval store at admission. */
export const permissionGate: LocalGate = (call, _ctx, deps) => {
  const entry = call.entry!;
  const decide = (args: Record<string, unknown>) =>
    deps.policy.decide(entry.name, args, entry.requiresApproval, entry.tool.classify?.bind(entry.tool));
  let verdict = decide(call.args!);
  // The rules also see the arguments as the tool will understand them (a path in its canonical spellings); the stricter decision wins.
  for (const spelling of call.spellings ?? []) verdict = strictest(verdict, decide(spelling));
  call.decision = verdict.decision;
  call.policyReason = verdict.reason;
  if (verdict.decision === 'deny') {
    return new GatewayError('PERMISSION_DENIED', {
      message: `The policy denies this call to ${entry.name} (${verdict.reason}).`,
      suggestion: 'Do not retry this call; choose another approach or ask the user.',
    });
  }
  return undefined;
};
