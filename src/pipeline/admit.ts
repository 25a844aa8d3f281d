import { redactForLog } from '../observability/logger.js';
import { GatewayError } from '../protocol/errors.js';
import { StateUnavailableError, type AdmitRequest, type Admission, type StoredResult } from '../state/state-store.js';
import { breakerScope } from './gates/breaker.js';
import { injectLock, lockPathToFetch } from './gates/lock-inject.js';
import { rateLimitPart } from './gates/rate-limit.js';
import { mismatchError, replayPart, stillRunningError } from './gates/replay.js';
import type { ExecContext, PipelineDeps, PlannedCall } from './types.js';

/** What admission decided for a call that passed the local gates. */
export type AdmitOutcome =
  | { kind: 'run'; probe: boolean; replayLease: boolean }
  | { kind: 'replayed'; result: StoredResult }
  | { kind: 'stopped' };

export function callTimeout(call: PlannedCall, ctx: ExecContext): number {
  const own = call.entry!.timeoutMs;
  return ctx.timeoutMs === undefined ? own : Math.min(own, ctx.timeoutMs);
}

function admitRequest(call: PlannedCall, ctx: ExecContext, deps: PipelineDeps): AdmitRequest {
  const entry = call.entry!;
  const request: AdmitRequest = {
    tenant: ctx.caller.tenant,
    sessionId: ctx.sessionId,
    callId: call.id,
    tool: entry.name,
    breaker: { scope: breakerScope(entry, ctx.caller, deps), ...entry.breaker },
  };
  const replay = replayPart(call, callTimeout(call, ctx));
  if (replay) request.replay = replay;
  if (call.decision === 'ask') {
    request.approval = {
      argsHash: call.fingerprint!,
      ttlMs: deps.config.state.approval_ttl_ms,
      summary: { tool: entry.name, arguments: redactForLog(call.args) },
    };
  }
  const lockPath = lockPathToFetch(call);
  if (lockPath !== undefined) request.lockPath = lockPath;
  const rateLimit = rateLimitPart(entry, ctx.caller);
  if (rateLimit) request.rateLimit = rateLimit;
  return request;
}

function stateUnavailable(message: string): GatewayError {
  return new GatewayError('STATE_UNAVAILABLE', { message, retryAfterMs: 1_000, suggestion: 'Retry shortly.' });
}

/** Whether a call cannot run safely without the state store (contract 3.5, STATE_UNAVAILABLE). */
function needsState(request: AdmitRequest): boolean {
  return request.replay !== undefined || request.approval !== undefined || request.lockPath !== undefined;
}

async function interpret(call: PlannedCall, request: AdmitRequest, admission: Admission, ctx: ExecContext, deps: PipelineDeps): Promise<AdmitOutcome> {
  switch (admission.outcome) {
    case 'admitted':
      if (request.lockPath !== undefined) injectLock(call, admission.lock);
      return { kind: 'run', probe: admission.probe, replayLease: request.replay !== undefined };
    case 'replayed':
      return { kind: 'replayed', result: admission.result };
    case 'in_flight': {
      let result: StoredResult | null;
      try {
        result = await deps.state.awaitResult(
          { tenant: ctx.caller.tenant, sessionId: ctx.sessionId, callId: call.id },
          callTimeout(call, ctx),
        );
      } catch (err) {
        // The store went away while waiting: this call cannot be answered, the rest of the batch still can.
        if (!(err instanceof StateUnavailableError)) throw err;
        deps.health.failed(err, ctx.log);
        call.failure = stateUnavailable(`The state store became unreachable while waiting for the result of ${call.id}, which another request runs.`);
        return { kind: 'stopped' };
      }
      if (result) return { kind: 'replayed', result };
      call.failure = stillRunningError(call);
      return { kind: 'stopped' };
    }
    case 'mismatch':
      call.failure = mismatchError(call);
      return { kind: 'stopped' };
    case 'approval_pending':
      call.failure = new GatewayError('APPROVAL_REQUIRED', {
        message: `This call to ${call.name} needs human approval (request ${admission.approvalId}).`,
        details: { approval_id: admission.approvalId },
        suggestion: 'Tell the user an approval is pending; once approved, send the same call again.',
      });
      return { kind: 'stopped' };
    case 'approval_denied':
      call.failure = new GatewayError('PERMISSION_DENIED', {
        message: `An operator denied this call to ${call.name}${admission.reason ? `: ${admission.reason}` : ''}.`,
        details: { approval_id: admission.approvalId },
        suggestion: 'Do not retry this call; choose another approach or ask the user.',
      });
      return { kind: 'stopped' };
    case 'circuit_open':
      call.failure = new GatewayError('CIRCUIT_OPEN', {
        message: `${call.name} is failing and its circuit is open.`,
        retryAfterMs: admission.retryAfterMs,
        suggestion: 'Use another tool for now, or retry after retry_after_ms.',
      });
      return { kind: 'stopped' };
    case 'rate_limited':
      call.failure = new GatewayError('RATE_LIMITED', {
        message: `The rate limit for ${call.name} is reached.`,
        retryAfterMs: admission.retryAfterMs,
        suggestion: 'Retry after retry_after_ms.',
      });
      return { kind: 'stopped' };
  }
}

/**
 * Gates 5-7 (and replay, and ASK approvals) for every call of a batch in one
 * state-store request. When the store is down, calls that need it answer
 * STATE_UNAVAILABLE and the rest run as if their breaker were closed.
 */
export async function admitBatch(calls: readonly PlannedCall[], ctx: ExecContext, deps: PipelineDeps): Promise<AdmitOutcome[]> {
  const requests = calls.map((call) => admitRequest(call, ctx, deps));
  let admissions: Admission[];
  try {
    admissions = await deps.state.admit(requests, deps.clock.now());
    deps.health.ok(ctx.log);
  } catch (err) {
    if (!(err instanceof StateUnavailableError)) throw err;
    deps.health.failed(err, ctx.log);
    return calls.map((call, i) => {
      if (!needsState(requests[i]!)) return { kind: 'run', probe: false, replayLease: false };
      call.failure = stateUnavailable(`${call.name} needs the state store, which is unreachable; nothing was run.`);
      return { kind: 'stopped' };
    });
  }
  return Promise.all(calls.map((call, i) => interpret(call, requests[i]!, admissions[i]!, ctx, deps)));
}
