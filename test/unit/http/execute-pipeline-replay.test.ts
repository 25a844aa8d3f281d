import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { faultyTool, slowTool } from '../../helpers/tools.js';
import { call } from './execute-pipeline-call.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('call-id replay: a side-effecting call id runs once', () => {
  it('a side-effecting call id runs once; the retry gets the stored result with replayed: true', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({ tools: [slowTool('W', { safe: false, ms: 1, counter })] });
    const first = await execute(t.app, [call('same', 'W', { v: 1 })]);
    const second = await execute(t.app, [call('same', 'W', { v: 1 })]);
    expect(counter.runs).toBe(1);
    expect(first.body.results[0].replayed).toBe(false);
    expect(second.body.results[0]).toMatchObject({ replayed: true, status: 'success', text: 'W done', tool_call_id: 'same' });
  });

  it('the same id with other arguments is IDEMPOTENCY_MISMATCH', async () => {
    t = await buildTestApp({ tools: [slowTool('W', { safe: false, ms: 1 })] });
    await execute(t.app, [call('same', 'W', { v: 1 })]);
    const { body } = await execute(t.app, [call('same', 'W', { v: 2 })]);
    expect(body.results[0].error.code).toBe('IDEMPOTENCY_MISMATCH');
  });

  it('read-only calls are simply run again', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({ tools: [slowTool('R', { safe: true, ms: 1, counter })] });
    await execute(t.app, [call('same', 'R')]);
    const again = await execute(t.app, [call('same', 'R')]);
    expect(counter.runs).toBe(2);
    expect(again.body.results[0].replayed).toBe(false);
  });

  it('replay is scoped by session', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({ tools: [slowTool('W', { safe: false, ms: 1, counter })] });
    await execute(t.app, { session_id: 'a', tool_calls: [call('same', 'W')] });
    await execute(t.app, { session_id: 'b', tool_calls: [call('same', 'W')] });
    expect(counter.runs).toBe(2);
  });

  it('while the first run is in flight, a second request waits for its result instead of running it', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({ tools: [slowTool('W', { safe: false, ms: 200, counter })] });
    const [a, b] = await Promise.all([execute(t.app, [call('same', 'W')]), execute(t.app, [call('same', 'W')])]);
    expect(counter.runs).toBe(1);
    expect([a.body.results[0].replayed, b.body.results[0].replayed].sort()).toEqual([false, true]);
    expect(a.body.results[0].text).toBe(b.body.results[0].text);
  });

  it('Idempotency-Key replays the whole response even when the model regenerated the call ids', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({ tools: [slowTool('W', { safe: false, ms: 1, counter })] });
    const body = [{ name: 'W', arguments: { v: 1 } }];
    const first = await execute(t.app, body, { 'idempotency-key': 'k-1' });
    const second = await execute(t.app, body, { 'idempotency-key': 'k-1' });
    expect(counter.runs).toBe(1);
    expect(second.body.results[0]).toEqual({ ...first.body.results[0], tool_call_id: expect.stringMatching(/^call_/), replayed: true });
    const other = await execute(t.app, [{ name: 'W', arguments: { v: 2 } }], { 'idempotency-key': 'k-1' });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_MISMATCH');
  });
});

describe('replayed failures', () => {
  it('a stored retryable failure replays with retryable: false and a hint to use a new id (call id and Idempotency-Key)', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({ tools: [faultyTool('HangW', { safe: false, timeoutMs: 50, counter })] });
    const first = await execute(t.app, [call('w', 'HangW', { mode: 'hang' })], { 'idempotency-key': 'k-hang' });
    expect(first.body.results[0].error).toMatchObject({ code: 'TIMEOUT', retryable: true });
    const byId = await execute(t.app, [call('w', 'HangW', { mode: 'hang' })]);
    const byKey = await execute(t.app, [call('w', 'HangW', { mode: 'hang' })], { 'idempotency-key': 'k-hang' });
    for (const res of [byId, byKey]) {
      expect(res.body.results[0]).toMatchObject({
        replayed: true,
        error: { code: 'TIMEOUT', retryable: false, suggestion: expect.stringMatching(/new id/) },
      });
    }
    expect(counter.runs).toBe(1);
    const fresh = await execute(t.app, [call('w2', 'HangW', { mode: 'ok' })]);
    expect(fresh.body.results[0].status).toBe('success');
  });
});
