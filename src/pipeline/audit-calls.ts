import type { AuditDecision, CallEntry } from '../audit/index.js';
import { redactForLog } from '../observability/logger.js';
import { canonicalJson, sha256Hex } from '../protocol/canonical.js';
import { GatewayError } from '../protocol/errors.js';
import { payloadOf, visiblePayload, type CallResult, type VisiblePayload } from '../protocol/result.js';
import { payloadJson } from '../protocol/result.js';
import { errorResult } from './call-result.js';
import { hasSideEffects } from './side-effects.js';
import type { ExecContext, PipelineDeps, PlannedCall } from './types.js';

/** What a request answers, one entry per call; the audit may turn a call's answer into AUDIT_UNAVAILABLE. */
interface Answers {
  results: CallResult[];
  payloads: VisiblePayload[];
  serialized: string[];
}

/** The approval a call's answer names (APPROVAL_REQUIRED). */
function approvalIdOf(result: CallResult): string | undefined {
  const id = (result.error?.details as { approval_id?: unknown } | undefined)?.approval_id;
  return typeof id === 'string' ? id : undefined;
}

function decisionOf(call: PlannedCall, result: CallResult): { decision: AuditDecision | null; approval_id?: string; decided_by?: string } {
  if (call.decision === undefined) return { decision: null };
  if (call.decision !== 'ask') return { decision: call.decision };
  if (call.approval) return { decision: call.approval.decision, approval_id: call.approval.id, decided_by: call.approval.decidedBy };
  // Not decided yet: the answer names the pending request, when one was opened.
  const id = approvalIdOf(result);
  return id === undefined ? { decision: 'ask' } : { decision: 'ask', approval_id: id };
}

function entryOf(call: PlannedCall, result: CallResult, resultSha256: string, ctx: ExecContext, deps: PipelineDeps): CallEntry {
  const args = call.args;
  const entry: CallEntry = {
    kind: 'call',
    tenant: ctx.caller.tenant,
    key_id: ctx.caller.keyId,
    ...(ctx.caller.user !== undefined && { user: ctx.caller.user }),
    session_id: ctx.sessionId,
    request_id: ctx.requestId ?? '',
    call_id: call.id,
    tool: call.name.slice(0, 100),
    arguments_sha256: args === undefined ? null : sha256Hex(canonicalJson(args)),
    // By value (a Write's content holding a key), then by key name: the trail can never be scrubbed.
    arguments: args === undefined ? null : redactForLog(deps.guardrails.records.redactValue(args, {})),
    ...decisionOf(call, result),
    status: result.status,
    replayed: result.replayed,
    result_sha256: resultSha256,
  };
  if (call.policyReason !== undefined) entry.policy_reason = call.policyReason;
  if (result.error) entry.error_code = result.error.code;
  return entry;
}

function unavailable(call: PlannedCall, result: CallResult): CallResult {
  // A gate's failure means the call never ran; any other answer came from the tool, or is its replayed result.
  const ran = call.failure === undefined;
  const error = new GatewayError('AUDIT_UNAVAILABLE', {
    message: ran
      ? `${call.name} ran, but its audit record could not be stored, so its result is withheld; the same call id is replayed once the trail works again.`
      : `The audit trail cannot be written; ${call.name} was not answered.`,
    retryAfterMs: 1_000,
    suggestion: 'Retry the same call shortly.',
  });
  return { ...errorResult(call, error), stats: result.stats };
}

/**
 * One record per call. A side-effecting call's record is stored before the request is answered, or the call answers
 * AUDIT_UNAVAILABLE; other records are written within `audit.flush_ms`, and counted while the trail fails.
 */
export async function auditCalls(
  calls: readonly PlannedCall[],
  answers: Answers,
  hashes: readonly string[],
  ctx: ExecContext,
  deps: PipelineDeps,
): Promise<Answers> {
  const trail = deps.audit;
  if (!trail) return answers;
  const waits: Array<Promise<number | undefined>> = [];
  calls.forEach((call, i) => {
    const durable = call.entry !== undefined && hasSideEffects(call.entry);
    if (!durable && !trail.writable) deps.metrics.auditUnrecorded.inc({ kind: 'read_only' });
    const stored = trail.record(entryOf(call, answers.results[i]!, hashes[i]!, ctx, deps), durable);
    if (stored)
      waits.push(
        stored.then(
          () => undefined,
          () => i,
        ),
      );
  });
  if (waits.length === 0) return answers;
  const failed = (await Promise.all(waits)).filter((i) => i !== undefined);
  if (failed.length === 0) return answers;
  const results = [...answers.results];
  const payloads = [...answers.payloads];
  const serialized = [...answers.serialized];
  for (const i of failed) {
    // Refused by the audit gate: its own answer already says so.
    if (results[i]!.error?.code === 'AUDIT_UNAVAILABLE') continue;
    results[i] = unavailable(calls[i]!, results[i]!);
    const payload = payloadOf(results[i]!);
    payloads[i] = visiblePayload(payload);
    serialized[i] = payloadJson(payload);
  }
  return { results, payloads, serialized };
}
