import type { NormalizedCall } from '../protocol/calls/index.js';
import { sha256Hex } from '../protocol/canonical.js';
import { payloadOf, visiblePayload, type CallResult, type VisiblePayload } from '../protocol/result.js';
import { mapBounded } from '../shared/map-bounded.js';
import { auditCalls } from './audit-calls.js';
import { fitBatch } from './budget.js';
import { payloadJson } from '../protocol/result.js';
import { errorResult, replayedResult, withPayload } from './call-result.js';
import { admitBatch, planCalls, recordBatch } from './gate-runner.js';
import { partition } from './partition.js';
import { runCall, type Finished } from './run-call.js';
import { spillFor } from './spill-health.js';
import { reportCalls } from './telemetry.js';
import type { ExecContext, PipelineDeps, PlannedCall, RanCall } from './types.js';

/** One batch: admission for the calls the local checks let on, gate 8 (execute) for those admitted to run, gate 9 (record) for those that ran. */
async function runBatch(batch: readonly PlannedCall[], ctx: ExecContext, deps: PipelineDeps): Promise<Finished[]> {
  const runnable = batch.filter((c) => !c.failure);
  const outcomes = runnable.length > 0 ? await admitBatch(runnable, ctx, deps) : [];
  const toRun: Array<{ call: PlannedCall; outcome: RanCall['outcome'] }> = [];
  outcomes.forEach((outcome, i) => {
    if (outcome.kind === 'run') toRun.push({ call: runnable[i]!, outcome });
  });
  const executed = await mapBounded(toRun, deps.config.limits.concurrency, async ({ call, outcome }) => {
    const ran = await runCall(call, ctx, deps);
    ran.outcome = outcome;
    return ran as Finished & RanCall;
  });
  await recordBatch(executed, ctx, deps);
  // runnable is the batch less the calls a local gate stopped, toRun (and executed) runnable less those admission did not run: all in order.
  let r = 0;
  let e = 0;
  return batch.map((call): Finished => {
    const outcome = call === runnable[r] ? outcomes[r++]! : undefined;
    if (outcome?.kind === 'run') return executed[e++]!;
    if (outcome?.kind === 'replayed') return { call, result: replayedResult(call, outcome.result) };
    return { call, result: errorResult(call, call.failure!) };
  });
}

/** Run a parsed request: batches in order, the batch budget, telemetry and audit; results in request order, one per call. */
export async function executeCalls(
  calls: readonly NormalizedCall[],
  ctx: ExecContext,
  deps: PipelineDeps,
): Promise<{ results: CallResult[]; payloads: VisiblePayload[]; serialized: string[] }> {
  deps.metrics.batchSize.observe(calls.length);
  const arrived = ctx.span ? Date.now() : 0;
  const planned = await planCalls(calls, ctx, deps);
  const finished: Finished[] = [];
  for (const batch of partition(planned)) finished.push(...(await runBatch(batch, ctx, deps)));
  let payloads = finished.map((f) => payloadOf(f.result));
  let serialized = finished.map((f, i) => f.json ?? payloadJson(payloads[i]!));
  let results = finished.map((f) => f.result);
  const fitted = await fitBatch(payloads, serialized, deps.config.limits.batch_budget_bytes, () => ({
    spill: spillFor(deps, ctx.caller.tenant, ctx.log),
    hints: finished.map((f) => f.call.entry?.tool.resumeHint),
  }));
  if (fitted) {
    ({ payloads, json: serialized } = fitted);
    results = finished.map((f, i) => withPayload(f.result, payloads[i]!));
  }
  const visible = payloads.map(visiblePayload);
  const hashes = serialized.map((s) => sha256Hex(s));
  reportCalls(finished, visible, ctx, deps, hashes, arrived);
  return auditCalls(
    finished.map((f) => f.call),
    { results, payloads: visible, serialized },
    hashes,
    ctx,
    deps,
  );
}
