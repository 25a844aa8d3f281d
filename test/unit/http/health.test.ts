import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { bigOutputTool, faultyTool } from '../../helpers/tools.js';
import { StateUnavailableError } from '../../../src/state/state-store.js';
import { createMemoryStateStore } from '../../../src/state/memory/index.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('health, readiness and metrics routes', () => {
  it('/healthz answers 200 without a key', async () => {
    t = await buildTestApp({ config: { keys: [{ id: 'k', tenant: 't', scopes: ['execute'], sha256: 'a'.repeat(64) }] } });
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
  });

  it('/readyz names the store that does not answer', async () => {
    const state = createMemoryStateStore();
    state.ping = async () => {
      throw new StateUnavailableError();
    };
    t = await buildTestApp({ state });
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'not_ready', failed: ['state_store'] });
    await state.close();
  });

  it('/metrics: calls by tool/status/code, durations, batch size, breaker state, truncations, spilled bytes, HTTP', async () => {
    t = await buildTestApp({ tools: [faultyTool('F'), bigOutputTool('Big')] });
    await execute(t.app, [
      { id: 'a', name: 'F', arguments: { mode: 'ok' } },
      { id: 'b', name: 'F', arguments: { mode: 'not_found' } },
      { id: 'c', name: 'Big', arguments: { size: 60_000 } },
    ]);
    for (let i = 0; i < 3; i++) await execute(t.app, [{ id: `f${i}`, name: 'F', arguments: { mode: 'fail' } }]);
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toContain('toolgate_tool_calls_total{tool="F",status="success",code=""} 1');
    expect(text).toContain('toolgate_tool_calls_total{tool="F",status="error",code="NOT_FOUND"} 1');
    expect(text).toContain('toolgate_tool_calls_total{tool="F",status="error",code="EXECUTION_FAILED"} 3');
    expect(text).toMatch(/toolgate_tool_duration_seconds_bucket\{le="[^"]+",tool="F"\}/);
    expect(text).toContain('toolgate_batch_size_count 4');
    expect(text).toContain('toolgate_breaker_state{tool="F",tenant="local"} 2');
    expect(text).toContain('toolgate_breaker_state{tool="Read",tenant="local"} 0');
    expect(text).toContain('toolgate_truncations_total 1');
    expect(text).toMatch(/toolgate_spilled_bytes_total 60000/);
    expect(text).toMatch(/toolgate_http_requests_total\{method="POST",route="\/execute",status="200"\} 4/);
  });
});

describe('admin routes during a state outage', () => {
  it('answer 503 STATE_UNAVAILABLE with Retry-After, not 500', async () => {
    const state = createMemoryStateStore();
    const down = async () => {
      throw new StateUnavailableError();
    };
    state.listApprovals = down;
    state.circuits = down;
    t = await buildTestApp({ state });
    for (const url of ['/approvals', '/circuits']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(503);
      expect(res.json().error.code).toBe('STATE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('1');
    }
    expect(t.logs.filter((l) => l.level === 50)).toEqual([]);
    await state.close();
  });
});
