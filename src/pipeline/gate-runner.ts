import type { NormalizedCall } from '../protocol/calls/index.js';
import { GatewayError } from '../protocol/errors.js';
import type { AdmitRequest, Admission, CallRef, SettleRequest } from '../state/state-store.js';
import { approvalGate } from './gates/approval.js';
import { auditGate } from './gates/audit.js';
import { breakerGate } from './gates/breaker.js';
import { lockGate } from './gates/lock.js';
import { lookupGate } from './gates/lookup.js';
import { parseGate } from './gates/parse.js';
import { permissionGate } from './gates/permission.js';
import { rateLimitGate } from './gates/rate-limit.js';
import { callRef, replayGate } from './gates/replay.js';
import { validateGate } from './gates/validate.js';
import { stateUnavailable, withState } from './state-health.js';
import type { AdmitOutcome, ExecContext, Gate, PipelineDeps, PlannedCall, RanCall } from './types.js';

/** The gates in the order they run, as docs/api.md lists them ("The gates, in order"); execute and record (gate 9) follow. */
export const GATES: readonly Gate[] = [
  parseGate,
  lookupGate,
  auditGate,
  validateGate,
  permissionGate,
  replayGate,
  approvalGate,
  lockGate,
  breakerGate,
  rateLimitGate,
];

/** The local checks of every gate, gate by gate over the request's calls; a call a check stops carries its failure. */
export async function planCalls(calls: readonly NormalizedCall[], ctx: ExecContext, deps: PipelineDeps): Promise<PlannedCall[]> {
  const planned = calls.map((c): PlannedCall => ({ index: c.index, id: c.id, name: c.name, rawArguments: c.rawArguments }));
  for (const gate of GATES) {
    if (gate.prepare) {
      let pending: Promise<void>[] | undefined;
      for (const call of planned) {
        const prepared = gate.prepare(call, ctx, deps);
        if (prepared) (pending ??= []).push(prepared);
      }
      if (pending) await Promise.all(pending);
    }
    if (!gate.check) continue;
    for (const call of planned) {
      if (call.failure) continue;
      const failure = gate.check(call, ctx, deps);
      if (failure) call.failure = failure;
    }
  }
  return planned;
}

function storeCall(call: PlannedCall, ctx: ExecContext): CallRef & { tool: string } {
  // callRef makes a new object each time: the request is this call's alone.
  const request = callRef(call, ctx) as CallRef & { tool: string };
  request.tool = call.entry!.name;
  return request;
}

function admitRequest(call: PlannedCall, ctx: ExecContext, deps: PipelineDeps): AdmitRequest {
  const request = storeCall(call, ctx) as AdmitRequest;
  for (const gate of GATES) gate.admit?.(call, request, ctx, deps);
  return request;
}

function stop(call: PlannedCall, failure: GatewayError): AdmitOutcome {
  call.failure = failure;
  return { kind: 'stopped' };
}

/** The store's answer, read by the gate it belongs to. */
function interpret(
  call: PlannedCall,
  request: AdmitRequest,
  admission: Admission,
  ctx: ExecContext,
  deps: PipelineDeps,
): AdmitOutcome | Promise<AdmitOutcome> {
  if (admission.outcome === 'admitted') {
    for (const gate of GATES) gate.admitted?.(call, admission, request);
    return { kind: 'run', probe: admission.probe, replayLease: request.replay !== undefined };
  }
  for (const gate of GATES) {
    const outcome = gate.answer?.(call, admission, ctx, deps);
    if (outcome instanceof GatewayError) return stop(call, outcome);
    if (outcome) return outcome;
  }
  throw new Error(`No gate reads the state store's answer ${admission.outcome}.`);
}

/** Admission: every stateful gate's part for every call of a batch, in one request; with the store down see needsStore. */
export async function admitBatch(calls: readonly PlannedCall[], ctx: ExecContext, deps: PipelineDeps): Promise<AdmitOutcome[]> {
  const requests = calls.map((call) => admitRequest(call, ctx, deps));
  const admissions = await withState(
    deps,
    ctx.log,
    async () => {
      let answers = await deps.state.admit(requests, deps.clock.now());
      for (const gate of GATES) if (gate.review) answers = await gate.review(calls, requests, answers, deps);
      return answers;
    },
    () => null,
  );
  if (admissions === null) {
    return calls.map((call, i) => {
      if (!GATES.some((gate) => gate.needsStore?.(requests[i]!))) return { kind: 'run', probe: false, replayLease: false };
      return stop(call, stateUnavailable(`${call.name} needs the state store, which is unreachable; nothing was run.`));
    });
  }
  const outcomes = calls.map((call, i) => interpret(call, requests[i]!, admissions[i]!, ctx, deps));
  return outcomes.some((outcome) => outcome instanceof Promise) ? Promise.all(outcomes) : (outcomes as AdmitOutcome[]);
}

/** Gate 9, record: what the executed calls of a batch leave in the state store, in one request. With the store down the results stand. */
export async function recordBatch(executed: readonly RanCall[], ctx: ExecContext, deps: PipelineDeps): Promise<void> {
  if (executed.length === 0) return;
  const requests = executed.map((ran) => {
    const request = storeCall(ran.call, ctx) as SettleRequest;
    for (const gate of GATES) gate.settle?.(ran, request, ctx, deps);
    return request;
  });
  await withState(
    deps,
    ctx.log,
    () => deps.state.settle(requests, deps.clock.now()),
    () => undefined,
  );
}
