import { GatewayError } from '../protocol/errors.js';
import type { AdmitRequest, Admission, CallRef, StoredResult } from '../state/state-store.js';
import { approvalDeniedError, approvalPart, approvalPendingError, openApprovals } from './gates/approval.js';
import { breakerPart, circuitOpenError } from './gates/breaker.js';
import { injectLock, lockPathToFetch } from './gates/lock.js';
import { rateLimitedError, rateLimitPart } from './gates/rate-limit.js';
import { mismatchError, replayPart, stillRunningError } from './gates/replay.js';
import { withState } from './state-health.js';
import { callTimeout } from './timeout.js';
import type { ExecContext, PipelineDeps, PlannedCall } from './types.js';

/** What admission decided for a call that passed the local gates. */
export type AdmitOutcome =
  { kind: 'run'; probe: boolean; replayLease: boolean } | { kind: 'replayed'; result: StoredResult } | { kind: 'stopped' };

/** Which call of whose session a request to the store is about; admit and settle both start from it. */
export function storeCall(call: PlannedCall, ctx: ExecContext): CallRef & { tool: string } {
  return { tenant: ctx.caller.tenant, sessionId: ctx.sessionId, callId: call.id, tool: call.entry!.name };
}

/** Each stateful gate's part of the one request, in the order the store checks them. */
function admitRequest(call: PlannedCall, ctx: ExecContext, deps: PipelineDeps): AdmitRequest {
  const entry = call.entry!;
  const request: AdmitRequest = Object.assign(storeCall(call, ctx), { breaker: breakerPart(entry, ctx.caller, deps) });
  const replay = replayPart(call, callTimeout(call, ctx));
  if (replay) request.replay = replay;
  const approval = approvalPart(call, deps);
  if (approval) request.approval = approval;
  const lockPath = lockPathToFetch(call);
  if (lockPath !== undefined) request.lockPath = lockPath;
  const rateLimit = rateLimitPart(entry, ctx.caller);
  if (rateLimit) request.rateLimit = rateLimit;
  return request;
}

function stateUnavailable(message: string): GatewayError {
  return new GatewayError('STATE_UNAVAILABLE', { message, retryAfterMs: 1_000, suggestion: 'Retry shortly.' });
}

/**
 * Whether a call cannot run safely without the state store (lock injection, replay of a side-effecting call): those answer
 * STATE_UNAVAILABLE, read-only calls still run.
 */
function needsState(request: AdmitRequest): boolean {
  return request.replay !== undefined || request.approval !== undefined || request.lockPath !== undefined;
}

function stop(call: PlannedCall, failure: GatewayError): AdmitOutcome {
  call.failure = failure;
  return { kind: 'stopped' };
}

/** Another request runs this call id: its result, once it has one, is this call's. */
function awaitRunning(call: PlannedCall, ctx: ExecContext, deps: PipelineDeps): Promise<AdmitOutcome> {
  return withState(
    deps,
    ctx.log,
    async () => {
      const result = await deps.state.awaitResult(
        { tenant: ctx.caller.tenant, sessionId: ctx.sessionId, callId: call.id },
        callTimeout(call, ctx),
      );
      return result ? { kind: 'replayed', result } : stop(call, stillRunningError(call));
    },
    // The store went away while waiting: this call cannot be answered, the rest of the batch still can.
    () =>
      stop(
        call,
        stateUnavailable(`The state store became unreachable while waiting for the result of ${call.id}, which another request runs.`),
      ),
  );
}

/** Each answer to the gate it belongs to, which says what it means for the call. */
function interpret(
  call: PlannedCall,
  request: AdmitRequest,
  admission: Admission,
  ctx: ExecContext,
  deps: PipelineDeps,
): AdmitOutcome | Promise<AdmitOutcome> {
  switch (admission.outcome) {
    case 'admitted':
      if (request.lockPath !== undefined) injectLock(call, admission.lock);
      if (admission.approval) call.approval = admission.approval;
      return { kind: 'run', probe: admission.probe, replayLease: request.replay !== undefined };
    case 'replayed':
      return { kind: 'replayed', result: admission.result };
    case 'in_flight':
      return awaitRunning(call, ctx, deps);
    case 'mismatch':
      return stop(call, mismatchError(call));
    case 'approval_pending':
      return stop(call, approvalPendingError(call, admission.approvalId));
    case 'approval_absent':
      // Asked again with the request to open (openApprovals), a call is never answered so; should a store do it, the call waits.
      return stop(call, stateUnavailable(`${call.name} needs an approval request the state store did not open; nothing was run.`));
    case 'approval_denied':
      return stop(call, approvalDeniedError(call, admission.approvalId, admission.reason));
    case 'circuit_open':
      return stop(call, circuitOpenError(call, admission.retryAfterMs));
    case 'rate_limited':
      return stop(call, rateLimitedError(call, admission.retryAfterMs));
  }
}

/**
 * Gates 5-7 (and replay, and ASK approvals) for every call of a batch in one
 * state-store request. When the store is down, calls that need it answer
 * STATE_UNAVAILABLE and the rest run as if their breaker were closed.
 */
export async function admitBatch(calls: readonly PlannedCall[], ctx: ExecContext, deps: PipelineDeps): Promise<AdmitOutcome[]> {
  const requests = calls.map((call) => admitRequest(call, ctx, deps));
  const admissions = await withState(
    deps,
    ctx.log,
    async () => openApprovals(calls, requests, await deps.state.admit(requests, deps.clock.now()), deps),
    () => null,
  );
  if (admissions === null) {
    return calls.map((call, i) => {
      if (!needsState(requests[i]!)) return { kind: 'run', probe: false, replayLease: false };
      return stop(call, stateUnavailable(`${call.name} needs the state store, which is unreachable; nothing was run.`));
    });
  }
  const outcomes = calls.map((call, i) => interpret(call, requests[i]!, admissions[i]!, ctx, deps));
  // Only a call another request is running waits; the rest are decided, with no promise each.
  return outcomes.some((outcome) => outcome instanceof Promise) ? Promise.all(outcomes) : (outcomes as AdmitOutcome[]);
}
