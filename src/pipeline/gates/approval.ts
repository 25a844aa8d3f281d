import { redactForLog } from '../../observability/logger.js';
import { GatewayError } from '../../protocol/errors.js';
import type { AdmitRequest } from '../../state/state-store.js';
import type { PipelineDeps, PlannedCall } from '../types.js';

/**
 * Gate 4's ASK, settled at admission: the permission gate said a human must
 * approve these arguments. The store opens one request per (session, tool,
 * arguments: their canonical spelling for a tool that classifies them); an
 * approved request admits the call once.
 */
export function approvalPart(call: PlannedCall, deps: PipelineDeps): AdmitRequest['approval'] {
  if (call.decision !== 'ask') return undefined;
  return {
    argsHash: call.approvalFingerprint ?? call.fingerprint!,
    ttlMs: deps.config.state.approval_ttl_ms,
    summary: { tool: call.entry!.name, arguments: redactForLog(call.args) },
  };
}

/** Pending (just opened, or still undecided): retryable, the same call again runs once it is approved. */
export function approvalPendingError(call: PlannedCall, approvalId: string): GatewayError {
  return new GatewayError('APPROVAL_REQUIRED', {
    message: `This call to ${call.name} needs human approval (request ${approvalId}).`,
    details: { approval_id: approvalId },
    suggestion: 'Tell the user an approval is pending; once approved, send the same call again.',
  });
}

/** Denied by an operator: final, with the operator's reason when one was given. */
export function approvalDeniedError(call: PlannedCall, approvalId: string, reason: string | undefined): GatewayError {
  return new GatewayError('PERMISSION_DENIED', {
    message: `An operator denied this call to ${call.name}${reason ? `: ${reason}` : ''}.`,
    details: { approval_id: approvalId },
    suggestion: 'Do not retry this call; choose another approach or ask the user.',
  });
}
