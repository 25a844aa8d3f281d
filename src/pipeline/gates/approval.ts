import { approvalArguments, previewOf } from '../../approvals/index.js';
import { GatewayError } from '../../protocol/errors.js';
import type { Admission, AdmitRequest } from '../../state/state-store.js';
import { stateUnavailable } from '../state-health.js';
import type { Gate, PipelineDeps, PlannedCall } from '../types.js';
import { fingerprintOf } from './replay.js';

/** The store keeps one request per (session, tool, arguments: their canonical spelling for a tool that classifies them). */
export function approvalPart(call: PlannedCall, deps: PipelineDeps): AdmitRequest['approval'] {
  if (call.decision !== 'ask') return undefined;
  return {
    argsHash: call.approvalFingerprint ?? call.fingerprint!,
    ttlMs: deps.config.state.approval_ttl_ms,
    maxPending: deps.config.approvals.max_pending_per_tenant,
  };
}

/**
 * The calls whose ASK found no live request are asked again, each with the request to open: its redacted arguments and its
 * preview, made now and stored with it so every replica shows the same. A request this opened is told to the webhook.
 */
async function openApprovals(
  calls: readonly PlannedCall[],
  requests: readonly AdmitRequest[],
  admissions: Admission[],
  deps: PipelineDeps,
): Promise<Admission[]> {
  if (!admissions.some((admission) => admission.outcome === 'approval_absent')) return admissions;
  const absent = admissions.flatMap((admission, i) => (admission.outcome === 'approval_absent' ? [i] : []));
  const again = await Promise.all(
    absent.map(async (i): Promise<AdmitRequest> => {
      const { entry, args } = calls[i]!;
      const request = requests[i]!;
      const open = {
        tool: entry!.name,
        arguments: approvalArguments(args!, deps.guardrails.records),
        preview: await previewOf(entry!.tool, args!, () => deps.workspaces.of(request.tenant), deps.guardrails.forTool(entry!.name)),
      };
      return { ...request, approval: { ...request.approval!, open } };
    }),
  );
  const answers = await deps.state.admit(again, deps.clock.now());
  const merged = [...admissions];
  absent.forEach((i, j) => {
    const answer = answers[j]!;
    merged[i] = answer;
    if (answer.outcome === 'approval_pending' && answer.opened) deps.approvalEvents?.created(answer.opened);
  });
  return merged;
}

/** The tenant's pending requests are at approvals.max_pending_per_tenant: retryable once some are decided or expire. */
function approvalLimitError(call: PlannedCall, retryAfterMs: number, max: number): GatewayError {
  return new GatewayError('APPROVAL_LIMIT', {
    message: `This call to ${call.name} needs human approval, and this tenant already has ${max} approval requests waiting for a decision; no request was opened.`,
    retryAfterMs,
    details: { max_pending: max },
    suggestion: 'Ask an operator to decide the pending requests (GET /approvals), or retry after retry_after_ms, when the oldest expires.',
  });
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

function answer(call: PlannedCall, admission: Admission, _ctx: unknown, deps: PipelineDeps): GatewayError | undefined {
  switch (admission.outcome) {
    case 'approval_pending':
      return approvalPendingError(call, admission.approvalId);
    case 'approval_absent':
      // Asked again with the request to open (openApprovals), a call is never answered so; should a store do it, the call waits.
      return stateUnavailable(`${call.name} needs an approval request the state store did not open; nothing was run.`);
    case 'approval_denied':
      call.approval = { id: admission.approvalId, decidedBy: admission.decidedBy, decision: 'denied' };
      return approvalDeniedError(call, admission.approvalId, admission.reason);
    case 'approval_limit':
      return approvalLimitError(call, admission.retryAfterMs, deps.config.approvals.max_pending_per_tenant);
    default:
      return undefined;
  }
}

/** Gate 4's ASK, settled at admission after replay: an approved request admits the call once. */
export const approvalGate: Gate = {
  name: 'approval',
  // Another spelling of the same shell command ('r''m' for rm) is the same request to the human who approves it.
  check(call) {
    if (call.decision !== 'ask') return undefined;
    call.fingerprint ??= fingerprintOf(call.name, call.sentArgs!);
    const canonical = call.spellings?.[0];
    if (call.entry!.tool.classify && canonical) call.approvalFingerprint = fingerprintOf(call.name, canonical);
    return undefined;
  },
  admit(call, request, _ctx, deps) {
    const part = approvalPart(call, deps);
    if (part) request.approval = part;
  },
  needsStore: (request) => request.approval !== undefined,
  review: openApprovals,
  admitted(call, admission) {
    if (admission.approval) call.approval = { ...admission.approval, decision: 'approved' };
  },
  answer,
};
