import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Tracing } from '../../../src/observability/spans.js';
import { startTracing, tracingSettings } from '../../../src/observability/tracing.js';
import { asyncGateway, type AsyncGateway } from '../../helpers/async.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../helpers/otlp-receiver.js';

/** A queued batch's span, in the worker, continues the trace of the request that submitted it. */
const TRACE_ID = '5bf92f3577b34da6a3ce929d0e0e4737';

let receiver: OtlpReceiver;
let tracing: Tracing;
let g: AsyncGateway | undefined;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
  tracing = (await startTracing(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin }).settings))!;
});

afterEach(async () => {
  await g?.close();
  g = undefined;
  await tracing.shutdown();
  await receiver.close();
});

describe('a traced async batch', () => {
  it("the job stores the submitting span's context; the worker's consumer span is its child, the call spans the worker span's", async () => {
    g = await asyncGateway({ tracing });
    const { body } = await g.submit(
      { tool_calls: [{ id: 'a1', name: 'LS', arguments: {} }] },
      { traceparent: `00-${TRACE_ID}-1111111111111111-01` },
    );
    g.startWorkers();
    await g.until(body.execution_id, ['completed']);
    await tracing.flush();
    const spans = receiver.spans().filter((s) => s.traceId === TRACE_ID);
    const submit = spans.find((s) => s.name === 'POST /execute')!;
    const job = spans.find((s) => s.name === 'execution')!;
    const call = spans.find((s) => s.name === 'execute_tool LS')!;
    expect(submit.parentSpanId).toBe('1111111111111111');
    expect(job).toMatchObject({ kind: 5, parentSpanId: submit.spanId, attributes: { 'toolgate.execution_id': body.execution_id } });
    expect(call).toMatchObject({ parentSpanId: job.spanId, attributes: { 'toolgate.status': 'success' } });
    expect(g.logs.find((l) => l.msg === 'tool call' && l.call_id === 'a1')).toMatchObject({
      trace_id: TRACE_ID,
      span_id: job.spanId,
      execution_id: body.execution_id,
    });
  });
});
