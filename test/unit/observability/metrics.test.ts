import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/observability/metrics.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { bigOutputTool, faultyTool } from '../../helpers/tools.js';

/** Metrics: prefix `toolgate_`, each listed metric present. */

const LISTED = [
  'toolgate_tool_calls_total', // tool calls by tool/status/code
  'toolgate_tool_duration_seconds', // tool duration histogram
  'toolgate_batch_size', // batch size
  'toolgate_breaker_state', // breaker state per tool
  'toolgate_truncations_total', // truncations
  'toolgate_spilled_bytes_total', // spilled bytes
  'toolgate_http_requests_total', // HTTP request metrics
  'toolgate_http_request_duration_seconds',
];

/** Metric names declared in a Prometheus text exposition. */
function declared(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
}

describe('metrics: every listed metric, all under toolgate_', () => {
  it('every metric of a gateway registry, process metrics included, is named toolgate_*', async () => {
    const metrics = createMetrics();
    const names = declared(await metrics.registry.metrics());
    expect(names.length).toBeGreaterThan(LISTED.length);
    for (const name of names) expect(name).toMatch(/^toolgate_/);
    for (const name of LISTED) expect(names).toContain(name);
    // Process metrics.
    expect(names).toEqual(expect.arrayContaining(['toolgate_process_cpu_user_seconds_total', 'toolgate_process_resident_memory_bytes']));
    expect(names.some((n) => n.startsWith('toolgate_nodejs_'))).toBe(true);
  });

  describe('after traffic', () => {
    let t: TestApp;
    let text: string;
    beforeAll(async () => {
      t = await buildTestApp({ tools: [faultyTool('F'), bigOutputTool('Big')] });
      await execute(t.app, [
        { id: 'a', name: 'F', arguments: { mode: 'ok' } },
        { id: 'b', name: 'Big', arguments: { size: 70_000 } },
        { id: 'c', name: 'Nope', arguments: {} },
      ]);
      text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    });
    afterAll(() => t.close());

    it('each listed metric has samples with its labels', () => {
      expect(text).toContain('toolgate_tool_calls_total{tool="F",status="success",code=""} 1');
      expect(text).toContain('toolgate_tool_calls_total{tool="Big",status="partial",code=""} 1');
      expect(text).toMatch(/toolgate_tool_calls_total\{tool="[^"]*",status="error",code="UNKNOWN_TOOL"\} 1/);
      expect(text).toMatch(/toolgate_tool_duration_seconds_count\{tool="F"\} 1/);
      expect(text).toContain('toolgate_batch_size_sum 3');
      expect(text).toMatch(/toolgate_breaker_state\{tool="F"[^}]*\} 0/);
      expect(text).toContain('toolgate_truncations_total 1');
      expect(text).toContain('toolgate_spilled_bytes_total 70000');
      expect(text).toMatch(/toolgate_http_requests_total\{method="POST",route="\/execute",status="200"\} 1/);
      expect(text).toMatch(/toolgate_http_request_duration_seconds_count\{method="POST",route="\/execute"\} 1/);
    });

    it('the metrics text has no metric outside the toolgate_ prefix', () => {
      for (const name of declared(text)) expect(name).toMatch(/^toolgate_/);
    });
  });
});
