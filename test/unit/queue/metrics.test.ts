import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { queueMetrics } from '../../../src/queue/metrics.js';

describe('async metrics', () => {
  it('every callback outcome is a series at 0 before the first attempt, so rate() sees the first delivery', async () => {
    const registry = new Registry();
    queueMetrics(registry);
    const lines = (await registry.metrics()).split('\n').filter((l) => l.startsWith('toolgate_async_callback_deliveries_total{'));
    expect(lines.sort()).toEqual([
      'toolgate_async_callback_deliveries_total{outcome="delivered"} 0',
      'toolgate_async_callback_deliveries_total{outcome="http_error"} 0',
      'toolgate_async_callback_deliveries_total{outcome="network_error"} 0',
      'toolgate_async_callback_deliveries_total{outcome="refused"} 0',
    ]);
  });
});
