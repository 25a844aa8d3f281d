import type { RedactionCounts } from '../guardrails/index.js';
import { redactForLog } from '../observability/logger.js';
import type { TraceSpan } from '../observability/tracing.js';
import type { NormalizedCall } from '../protocol/calls/index.js';
import { sha256Hex } from '../protocol/canonical.js';
import { GatewayError, isGatewayError } from '../protocol/errors.js';
import { asReplayed, payloadOf, visiblePayload, type CallResult, type Payload, type VisiblePayload } from '../protocol/result.js';
import { StateUnavailableError, type SettleRequest, type StoredResult } from '../state/state-store.js';
import type { Tool, ToolOutput } from '../tools/tool.js';
import { auditCalls } from './audit-calls.js';
import { admitBatch, callTimeout, storeCall, type AdmitOutcome } from './admit.js';
import { applyBatchBudget, applyCallBudget, payloadBytes, payloadJson, truncationRecord } from './budget.js';
import { contentBytes, fitContent } from './content-budget.js';
import { callSpanName, endCallSpan } from './call-span.js';
import { callGuard } from './guard.js';
import { CallContext } from './call-context.js';
import { breakerOutcome, breakerScope } from './gates/breaker.js';
import { lockToStore } from './gates/lock.js';
import { partition } from './partition.js';
import { planCalls } from './plan.js';
import { spillFor } from './spill-health.js';
import { mapBounded, runWithTimeout } from './timeout.js';
import type { ExecContext, PipelineDeps, PlannedCall } from './types.js';

/** A finished call, before the batch budget and rendering. */
interface Finished {
  call: PlannedCall;
  result: CallResult;
  /** Set for executed calls; the error a tool failed with, for logs and the breaker. */
  error?: GatewayError;
  /** The payload as serialized by the per-call budget, when it kept it whole (see applyCallBudget). */
  json?: string;
  /** With tracing on, an executed call's span, open from before its tool ran, and when the tool and the per-call budget were done (epoch ms). */
  span?: TraceSpan;
  ended?: number;
  /** What the guardrails redacted from an executed call's output, by kind. */
  redactions?: RedactionCounts;
  /** An executed call's admission (whether it was the breaker's probe). */
  outcome?: AdmitOutcome & { kind: 'run' };
}

function errorResult(call: PlannedCall, error: GatewayError, timeMs = 0): CallResult {
  return {
    tool_call_id: call.id,
    name: call.name,
    status: 'error',
    text: '',
    error: error.toCallError(),
    truncated: null,
    stats: { time_ms: timeMs, output_bytes: 0 },
    replayed: false,
  };
}

function replayedResult(call: PlannedCall, stored: StoredResult): CallResult {
  return asReplayed({ ...(stored as unknown as CallResult), tool_call_id: call.id, name: call.name });
}

/** What the tool answered: a success, or (`output.error`) a failure that keeps its text and data. */
function outputResult(call: PlannedCall, output: ToolOutput, timeMs: number): CallResult {
  const truncated = output.spilled ? truncationRecord(output.spilled.record) : null;
  const result: CallResult = {
    tool_call_id: call.id,
    name: call.name,
    status: output.error ? 'error' : output.partial || truncated ? 'partial' : 'success',
    text: output.text,
    truncated,
    stats: { time_ms: timeMs, output_bytes: Buffer.byteLength(output.text) },
    replayed: false,
  };
  if (output.content !== undefined) result.content = output.content;
  if (output.data !== undefined) result.data = output.data;
  if (output.error) result.error = output.error.toCallError();
  return result;
}

/** The result with its payload fields replaced: a budget may have dropped `data`. */
function withPayload(result: CallResult, payload: Payload): CallResult {
  const { data: _data, error: _error, content: _content, ...rest } = result;
  return { ...rest, ...payload };
}

function asGatewayError(err: unknown, call: PlannedCall, ctx: ExecContext): GatewayError {
  if (isGatewayError(err)) return err;
  ctx.log.error({ err, call_id: call.id, tool: call.name }, 'tool threw an unexpected error');
  return new GatewayError('EXECUTION_FAILED', { message: `${call.name} failed unexpectedly.` });
}

function hintOf(tool: Tool | undefined) {
  return tool?.resumeHint ? (kept: string, rest: string) => tool.resumeHint?.(kept, rest) : undefined;
}

/** Gate 8: run the tool under its deadline; then the per-call budget. With tracing on, both in the call's span. */
async function execute(call: PlannedCall, ctx: ExecContext, deps: PipelineDeps): Promise<Finished & { output?: ToolOutput }> {
  const span = ctx.span?.child(callSpanName(call));
  const finished = await runTool(call, ctx, deps, span);
  if (span) Object.assign(finished, { span, ended: Date.now() });
  return finished;
}

async function runTool(call: PlannedCall, ctx: ExecContext, deps: PipelineDeps, span: TraceSpan | undefined): Promise<Finished & { output?: ToolOutput }> {
  const started = performance.now();
  const timeoutMs = callTimeout(call, ctx);
  const spill = spillFor(deps, ctx.caller.tenant, ctx.log);
  const guard = callGuard(call.name, spill, deps);
  try {
    const output = await runWithTimeout(
      timeoutMs,
      (abort) => call.entry!.tool.run(call.args!, new CallContext(call.id, timeoutMs, guard.spill, abort, span, ctx, deps)),
      ctx.cancel,
    );
    const { result, redactions } = guard.redact(outputResult(call, output, Math.round(performance.now() - started)));
    return { call, ...(await withinCallBudget(result, call.entry!.tool, spill, deps)), output, error: output.error, redactions };
  } catch (err) {
    const error = asGatewayError(err, call, ctx);
    return { call, ...guard.redact(errorResult(call, error, Math.round(performance.now() - started))), error };
  }
}

/** The tool has run: a spill store failure cuts its payload all the same (spillFor never rejects for one), never turns it into an error. */
async function withinCallBudget(result: CallResult, tool: Tool, spill: ReturnType<typeof spillFor>, deps: PipelineDeps): Promise<{ result: CallResult; json?: string }> {
  const budget = deps.config.limits.call_budget_bytes;
  if (result.content) result = withPayload(result, (await fitContent([result], [payloadBytes(result)], budget, spill))[0]!);
  const budgeted = await applyCallBudget(result, budget - contentBytes(result), spill, hintOf(tool));
  // Kept whole: the result already holds exactly the payload's fields.
  if (budgeted.json !== undefined) return { result, json: budgeted.json };
  return { result: withPayload(result, budgeted.payload) };
}

/** Gate 9: what the executed calls of a batch leave in the state store, in one request. */
async function settle(executed: Array<Finished & { output?: ToolOutput; outcome: AdmitOutcome & { kind: 'run' } }>, ctx: ExecContext, deps: PipelineDeps): Promise<void> {
  if (executed.length === 0) return;
  const requests: SettleRequest[] = executed.map(({ call, result, error, output, outcome }) => {
    const entry = call.entry!;
    // Field by field: this runs for every call, and spreading the small objects cost as much as the rest of it.
    const request: SettleRequest = Object.assign(storeCall(call, ctx), {
      breaker: {
        scope: breakerScope(entry, ctx.caller, deps),
        outcome: breakerOutcome(error, callTimeout(call, ctx) < entry.timeoutMs),
        probe: outcome.probe,
        failureThreshold: entry.breaker.failureThreshold,
        recoveryMs: entry.breaker.recoveryMs,
      },
    });
    const lock = output && !error ? lockToStore(call, output) : undefined;
    if (lock) request.lock = { ...lock, ttlMs: deps.config.state.lock_ttl_ms };
    if (outcome.replayLease) {
      const { tool_call_id: _id, replayed: _replayed, ...stored } = result;
      request.replay = { result: stored as StoredResult, ttlMs: deps.config.state.replay_ttl_ms };
    }
    return request;
  });
  try {
    await deps.state.settle(requests, deps.clock.now());
    deps.health.ok(ctx.log);
  } catch (err) {
    if (!(err instanceof StateUnavailableError)) throw err;
    deps.health.failed(err, ctx.log);
  }
}

async function runBatch(batch: readonly PlannedCall[], ctx: ExecContext, deps: PipelineDeps): Promise<Finished[]> {
  const runnable = batch.filter((c) => !c.failure);
  const outcomes = runnable.length > 0 ? await admitBatch(runnable, ctx, deps) : [];
  const outcomeOf = new Map(runnable.map((call, i) => [call, outcomes[i]!]));
  const toRun = runnable.filter((c) => outcomeOf.get(c)!.kind === 'run');
  const executed = await mapBounded(toRun, deps.config.limits.concurrency, async (call) => ({
    ...(await execute(call, ctx, deps)),
    outcome: outcomeOf.get(call) as AdmitOutcome & { kind: 'run' },
  }));
  await settle(executed, ctx, deps);
  const byCall = new Map<PlannedCall, Finished>(executed.map((f) => [f.call, f]));
  return batch.map((call) => {
    const done = byCall.get(call);
    if (done) return done;
    const outcome = outcomeOf.get(call);
    if (outcome?.kind === 'replayed') return { call, result: replayedResult(call, outcome.result) };
    return { call, result: errorResult(call, call.failure!) };
  });
}

/** A call's span, ended with its gate outcomes: the executed call's own, or one for a call a gate stopped or replayed, from when the request's calls arrived. */
function traceCall(finished: Finished, payload: VisiblePayload, ctx: ExecContext, span: TraceSpan, arrived: number): void {
  const { call, result, outcome } = finished;
  const own = finished.span ?? span.child(callSpanName(call), undefined, arrived);
  endCallSpan(own, call, { result, payload, ran: outcome !== undefined, probe: outcome?.probe === true }, ctx, finished.ended ?? arrived);
}

function record(finished: readonly Finished[], payloads: readonly VisiblePayload[], ctx: ExecContext, deps: PipelineDeps, bytes: readonly string[], arrived: number): void {
  finished.forEach(({ call, result, redactions }, i) => {
    const code = result.error?.code ?? '';
    for (const [kind, count] of Object.entries(redactions ?? {})) deps.metrics.redactions.inc({ tool: call.name, kind }, count);
    deps.metrics.toolCalls.inc({ tool: call.entry ? call.name : '(unknown)', status: result.status, code });
    if (call.entry && !result.replayed) deps.metrics.toolDuration.observe({ tool: call.name }, result.stats.time_ms / 1000);
    if (payloads[i]!.truncated) deps.metrics.truncations.inc();
    ctx.log.info(
      {
        session_id: ctx.sessionId,
        tenant: ctx.caller.tenant,
        call_id: call.id,
        tool: call.name.slice(0, 100),
        mcp_server: call.entry?.tool.upstream?.server,
        arguments: call.args === undefined ? undefined : redactForLog(call.args),
        result_sha256: bytes[i],
        status: result.status,
        error_code: code || undefined,
        replayed: result.replayed,
        duration_ms: result.stats.time_ms,
        redactions,
        model: ctx.model,
      },
      'tool call',
    );
    if (ctx.span) traceCall(finished[i]!, payloads[i]!, ctx, ctx.span, arrived);
  });
}

/**
 * Run a parsed request: local gates, batches in order (concurrency-safe ones
 * concurrently), the batch budget, then metrics and one log line per call.
 * Results come back in request order, one per call; `payloads` and
 * `serialized` are what the model may see of each (no store `uri`).
 */
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
  let sizes = serialized.map((json) => Buffer.byteLength(json, 'utf8'));
  const budget = deps.config.limits.batch_budget_bytes;
  let blocks = payloads.reduce((sum, p) => sum + contentBytes(p), 0);
  // The hints and the spill are made only for a batch over its budget; one within it is left as it is (as applyBatchBudget would).
  if (sizes.reduce((a, b) => a + b, 0) + blocks > budget) {
    const spill = spillFor(deps, ctx.caller.tenant, ctx.log);
    if (blocks > 0) {
      payloads = await fitContent(payloads, sizes, budget, spill);
      serialized = payloads.map(payloadJson);
      sizes = serialized.map((json) => Buffer.byteLength(json, 'utf8'));
      results = finished.map((f, i) => withPayload(f.result, payloads[i]!));
      blocks = payloads.reduce((sum, p) => sum + contentBytes(p), 0);
    }
    const hints = finished.map((f) => hintOf(f.call.entry?.tool));
    const batch = await applyBatchBudget(payloads, budget - blocks, spill, hints, sizes);
    if (batch.cut > 0) {
      payloads = batch.payloads;
      serialized = payloads.map(payloadJson);
      results = finished.map((f, i) => withPayload(f.result, payloads[i]!));
    }
  }
  const visible = payloads.map(visiblePayload);
  const hashes = serialized.map((s) => sha256Hex(s));
  record(finished, visible, ctx, deps, hashes, arrived);
  return auditCalls(finished.map((f) => f.call), { results, payloads: visible, serialized }, hashes, ctx, deps);
}
