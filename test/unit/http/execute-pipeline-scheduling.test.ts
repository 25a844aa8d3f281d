import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { Timeline, faultyTool, slowTool } from '../../helpers/tools.js';
import { call } from './execute-pipeline-call.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('orchestration: safe calls run together, unsafe ones alone, results in request order', () => {
  it('[safe, safe, unsafe, safe] runs as (safe, safe) then (unsafe) then (safe), results in request order', async () => {
    const timeline = new Timeline();
    t = await buildTestApp({
      tools: [slowTool('SlowRead', { safe: true, ms: 60, timeline }), slowTool('SlowWrite', { safe: false, ms: 60, timeline })],
    });
    const { body } = await execute(t.app, [call('a', 'SlowRead'), call('b', 'SlowRead'), call('c', 'SlowWrite'), call('d', 'SlowRead')]);
    expect(body.results.map((r: { tool_call_id: string }) => r.tool_call_id)).toEqual(['a', 'b', 'c', 'd']);
    expect(timeline.overlapping('a')).toEqual(['b']);
    expect(timeline.overlapping('c')).toEqual([]);
    expect(timeline.overlapping('d')).toEqual([]);
    const order = timeline.events.filter((e) => e.kind === 'start').map((e) => e.id);
    expect(order.indexOf('c')).toBeGreaterThan(order.indexOf('b'));
    expect(order.indexOf('d')).toBeGreaterThan(order.indexOf('c'));
  });

  it('unsafe calls never overlap each other', async () => {
    const timeline = new Timeline();
    t = await buildTestApp({ tools: [slowTool('W', { safe: false, ms: 20, timeline })] });
    await execute(
      t.app,
      ['1', '2', '3', '4'].map((id) => call(id, 'W')),
    );
    expect(timeline.maxConcurrent).toBe(1);
  });

  it('concurrency within a batch is bounded by limits.concurrency', async () => {
    const timeline = new Timeline();
    t = await buildTestApp({ tools: [slowTool('R', { safe: true, ms: 40, timeline })], config: { limits: { concurrency: 3 } } });
    const { body } = await execute(
      t.app,
      Array.from({ length: 10 }, (_, i) => call(`c${i}`, 'R')),
    );
    expect(body.results).toHaveLength(10);
    expect(timeline.maxConcurrent).toBe(3);
  });

  it('a tool that throws fails that call only, with EXECUTION_FAILED and no internals', async () => {
    t = await buildTestApp({ tools: [faultyTool('F')] });
    const { body } = await execute(t.app, [call('1', 'F', { mode: 'throw' }), call('2', 'F', { mode: 'ok' })]);
    expect(body.results[0].error).toMatchObject({ code: 'EXECUTION_FAILED', retryable: false });
    expect(JSON.stringify(body)).not.toContain('/secret/path');
    expect(body.results[1].status).toBe('success');
  });
});

describe('timeouts', () => {
  it('a tool that ignores its signal still yields TIMEOUT at the deadline', async () => {
    t = await buildTestApp({ tools: [faultyTool('H', { timeoutMs: 100 })] });
    const started = Date.now();
    const { body } = await execute(t.app, [call('1', 'H', { mode: 'hang' })]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(body.results[0].error).toMatchObject({ code: 'TIMEOUT', retryable: true });
  });

  it('the request timeout_ms lowers the tool timeout, and a late result is dropped', async () => {
    t = await buildTestApp({ tools: [faultyTool('L', { timeoutMs: 10_000 })] });
    const { body } = await execute(t.app, { timeout_ms: 50, tool_calls: [call('1', 'L', { mode: 'late' })] });
    expect(body.results[0].error.code).toBe('TIMEOUT');
    await new Promise((r) => setTimeout(r, 400));
    expect(JSON.stringify(body)).not.toContain('late result');
  });

  it('timeout_ms never raises a tool timeout', async () => {
    t = await buildTestApp({ tools: [faultyTool('H', { timeoutMs: 80 })] });
    const started = Date.now();
    const { body } = await execute(t.app, { timeout_ms: 60_000, tool_calls: [call('1', 'H', { mode: 'hang' })] });
    expect(body.results[0].error.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
