import { approvalArguments, previewOf } from '../../approvals/index.js';
import { GatewayError } from '../../protocol/errors.js';
import type { Admission, AdmitRequest } from '../../state/state-store.js';
import type { PipelineDeps, PlannedCall } from '../types.js';

/**
 * Gate 4's ASK, settled at admission: the permission gate said a human must
 * approve these arguments. The store keeps one request per (session, tool,
 * arguments: their canonical spelling for a tool that classifies them); an
 * approved request admits the call once.
 */
export function approvalPart(call: PlannedCall, deps: PipelineDeps): AdmitRequest['approval'] {
  if (call.decision !== 'ask') return undefined;
  return { argsHash: call.approvalFingerprint ?? call.fingerprint!, ttlMs: deps.config.state.approval_ttl_ms };
}

/**
 * The calls whose ASK found no live request are asked again, each with the
 * request to open: its redacted arguments and its preview, made now (the
 * file as it is now) and stored with it, so every replica shows the same.
 * Only such calls pay for a preview; a call asking again about a pending
 * request does not, and no other call comes here. A request this opened is
 * told to the webhook.
 */
export async function openApprovals(
  calls: readonly PlannedCall[],
  requests: readonly AdmitRequest[],
  admissions: Admission[],
  deps: PipelineDeps,
): Promise<Admission[]> {
  // Every batch comes here: one pass, no allocation, unless a call needs a request opened.
  if (!admissions.some((admission) => admission.outcome === 'approval_absent')) return admissions;
  const absent = admissions.flatMap((admission, i) => (admission.outcome === 'approval_absent' ? [i] : []));
  const again = await Promise.all(
    absent.map(async (i): Promise<AdmitRequest> => {
      const { entry, args } = calls[i]!;
      const request = requests[i]!;
      const open = {
        tool: entry!.name,
        arguments: approvalArguments(args!),
        preview: await previewOf(entry!.tool, args!, deps.guardrails.forTool(entry!.name)),
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
