import { canonicalJson, sha256Hex } from '../../protocol/canonical.js';
import { GatewayError } from '../../protocol/errors.js';
import type { CallResult } from '../../protocol/result.js';
import type { Admission, AdmitRequest, CallRef, SettleRequest, StoredResult } from '../../state/state-store.js';
import { hasSideEffects } from '../side-effects.js';
import { stateUnavailable, withState } from '../state-health.js';
import { callTimeout } from '../timeout.js';
import type { AdmitOutcome, ExecContext, Gate, PipelineDeps, PlannedCall, RanCall } from '../types.js';

// Once-record transitions are the store's: state/memory/once-records.ts and state/redis/lua/includes/replay.lua.

/** Binds a call id to what it asked for, so the same id with other arguments is caught. */
export function fingerprintOf(name: string, args: Record<string, unknown>): string {
  return sha256Hex(`${name}\n${canonicalJson(args)}`);
}

/** Where the store keeps what this call leaves: its tenant's, session's and call id's, and its user's when it is for one. */
export function callRef(call: PlannedCall, ctx: ExecContext): CallRef {
  // One shape with or without a user: the request grows from it gate by gate, and the store reads it on every call.
  return { tenant: ctx.caller.tenant, sessionId: ctx.sessionId, callId: call.id, user: ctx.caller.user };
}

/** The lease outlives the call's timeout so a slow first run is not mistaken for a crashed one. */
export function replayPart(call: PlannedCall, timeoutMs: number): AdmitRequest['replay'] {
  if (!hasSideEffects(call.entry!)) return undefined;
  return { fingerprint: call.fingerprint!, leaseMs: timeoutMs + 5_000 };
}

/** The result a call that held the lease leaves for the same id again, without the id itself (a replay answers with its own). */
function replaySettlePart(result: CallResult, deps: PipelineDeps): SettleRequest['replay'] {
  const { tool_call_id: _id, replayed: _replayed, ...stored } = result;
  // A call refused for want of the person's authorization never reached its upstream: once they authorize, the same id runs.
  const ttlMs = result.error?.code === 'AUTHORIZATION_REQUIRED' ? 1 : deps.config.state.replay_ttl_ms;
  return { result: stored as StoredResult, ttlMs };
}

/** The id was used for another call: final, a new id is the way on. */
export function mismatchError(call: PlannedCall): GatewayError {
  return new GatewayError('IDEMPOTENCY_MISMATCH', {
    message: `The call id ${call.id} was already used in this session with a different tool or arguments.`,
    suggestion: 'Use a new call id for a different call.',
  });
}

/** The first run outlasted this call's wait for it: retryable, the same id then gets its result. */
export function stillRunningError(call: PlannedCall): GatewayError {
  return new GatewayError('TIMEOUT', {
    message: `The call id ${call.id} is still running in another request; its result was not ready in time.`,
    retryAfterMs: 1_000,
    suggestion: 'Retry with the same call id to get its result once it finishes.',
  });
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
      const result = await deps.state.awaitResult(callRef(call, ctx), callTimeout(call, ctx));
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

function answer(call: PlannedCall, admission: Admission, ctx: ExecContext, deps: PipelineDeps) {
  if (admission.outcome === 'replayed') return { kind: 'replayed', result: admission.result } as const;
  if (admission.outcome === 'in_flight') return awaitRunning(call, ctx, deps);
  return admission.outcome === 'mismatch' ? mismatchError(call) : undefined;
}

/** A side-effecting call id runs once per session; the same id again gets its result, waits for it, or is refused. */
export const replayGate: Gate = {
  name: 'replay',
  check(call) {
    if (hasSideEffects(call.entry!)) call.fingerprint = fingerprintOf(call.name, call.sentArgs!);
    return undefined;
  },
  admit(call, request, ctx) {
    const part = replayPart(call, callTimeout(call, ctx));
    if (part) request.replay = part;
  },
  needsStore: (request) => request.replay !== undefined,
  answer,
  settle({ result, outcome }: RanCall, request, _ctx, deps) {
    if (outcome.replayLease) request.replay = replaySettlePart(result, deps);
  },
};
