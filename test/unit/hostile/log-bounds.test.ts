import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: the per-call log line cuts long strings and long
 * arrays of the arguments, but not objects with many keys. A call whose
 * arguments held 80,000 keys (870 KB, under the body limit) wrote an 870 KB
 * 'tool call' line, and copying the arguments for it cost a quarter second of
 * event loop per call.
 */
describe('the tool call log line stays bounded', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t.close());

  it('arguments with 20,000 keys are logged with a bounded number of them', async () => {
    const args: Record<string, unknown> = { path: 'x', nested: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`n${i}`, i])) };
    for (let i = 0; i < 20_000; i++) args[`k${i}`] = i;
    const res = await execute(t.app, [{ id: 'many', name: 'Read', arguments: args }]);
    expect(res.body.results[0].error.code).toBe('INVALID_ARGS');
    const line = t.logs.find((l) => l.msg === 'tool call' && l.call_id === 'many')!;
    expect(line).toBeDefined();
    const logged = line.arguments as Record<string, unknown>;
    expect(Object.keys(logged).length).toBeLessThanOrEqual(51);
    expect(logged.path).toBe('x');
    expect(Object.keys(logged.nested as object).length).toBeLessThanOrEqual(51);
    expect(JSON.stringify(line).length).toBeLessThan(20_000);
    expect(JSON.stringify(logged)).toContain('more keys');
  });

  it('secret-looking keys are still redacted among the first ones', async () => {
    await execute(t.app, [{ id: 'secret', name: 'Read', arguments: { path: 'x', api_key: 'sk-123', extra: 1 } }]);
    const line = t.logs.find((l) => l.msg === 'tool call' && l.call_id === 'secret')!;
    expect(line.arguments).toEqual({ path: 'x', api_key: '[REDACTED]', extra: 1 });
  });
});
