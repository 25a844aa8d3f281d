import type { SettleRequest } from '../state/state-store.js';
import { storeCall } from './admit.js';
import { breakerSettlePart } from './gates/breaker.js';
import { lockSettlePart } from './gates/lock.js';
import { replaySettlePart } from './gates/replay.js';
import type { Ran } from './run-call.js';
import { withState } from './state-health.js';
import type { ExecContext, PipelineDeps } from './types.js';

/** A call that was admitted to run, and ran. */
export type Settling = Ran & { outcome: NonNullable<Ran['outcome']> };

/** Each stateful gate's part of the one request, as admission composes its own (admit.ts). */
function settleRequest({ call, result, error, output, outcome }: Settling, ctx: ExecContext, deps: PipelineDeps): SettleRequest {
  // Field by field: this runs for every call, and spreading the small objects cost as much as the rest of it.
  const request: SettleRequest = Object.assign(storeCall(call, ctx), { breaker: breakerSettlePart(call, error, outcome.probe, ctx, deps) });
  const lock = lockSettlePart(call, output, deps);
  if (lock) request.lock = lock;
  if (outcome.replayLease) request.replay = replaySettlePart(result, deps);
  return request;
}

/**
 * Gate 9: what the executed calls of a batch leave in the state store, in
 * one request. When the store is down nothing is left: the results stand.
 */
export async function settleBatch(executed: readonly Settling[], ctx: ExecContext, deps: PipelineDeps): Promise<void> {
  if (executed.length === 0) return;
  const requests = executed.map((ran) => settleRequest(ran, ctx, deps));
  await withState(
    deps,
    ctx.log,
    () => deps.state.settle(requests, deps.clock.now()),
    () => undefined,
  );
}
