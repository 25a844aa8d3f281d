import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';
import { slowTool } from '../../../helpers/tools.js';

/** Rate limits count per key and tool; a tool declares or inherits its limit. */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const KEY = { a: 'tg_rl-a', b: 'tg_rl-b', capped: 'tg_rl-capped' };
const as = (key: string) => ({ authorization: `Bearer ${key}` });
const KEYS = [
  { id: 'a', sha256: sha256(KEY.a), tenant: 'acme', scopes: ['execute'] },
  { id: 'b', sha256: sha256(KEY.b), tenant: 'acme', scopes: ['execute'] },
  { id: 'capped', sha256: sha256(KEY.capped), tenant: 'acme', scopes: ['execute'], rate_limit: { per_minute: 1 } },
];

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const calls = (name: string, n: number, prefix = name) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, name, arguments: {} }));
const statuses = (body: any) => body.results.map((r: any) => (r.status === 'error' ? r.error.code : r.status));

describe('rate limits count per key and tool, declared or inherited', () => {
  it('count per key: one key at its limit leaves another key of the same tenant untouched', async () => {
    t = await buildTestApp({
      builtins: false,
      tools: [{ ...slowTool('T', { safe: true, ms: 1 }), rateLimit: { perMinute: 2 } }],
      config: { keys: KEYS },
    });
    expect(statuses((await execute(t.app, calls('T', 3), as(KEY.a))).body)).toEqual(['success', 'success', 'RATE_LIMITED']);
    expect(statuses((await execute(t.app, calls('T', 2), as(KEY.b))).body)).toEqual(['success', 'success']);
  });

  it("count per tool: one tool at its limit leaves the key's other tools untouched", async () => {
    t = await buildTestApp({
      builtins: false,
      tools: [
        { ...slowTool('T', { safe: true, ms: 1 }), rateLimit: { perMinute: 1 } },
        { ...slowTool('U', { safe: true, ms: 1 }), rateLimit: { perMinute: 1 } },
      ],
      config: { keys: KEYS },
    });
    expect(statuses((await execute(t.app, [...calls('T', 2), ...calls('U', 1)], as(KEY.a))).body)).toEqual([
      'success',
      'RATE_LIMITED',
      'success',
    ]);
  });

  it('RATE_LIMITED is retryable with a retry_after_ms after which the call is admitted again', async () => {
    t = await buildTestApp({ builtins: false, tools: [{ ...slowTool('T', { safe: true, ms: 1 }), rateLimit: { perMinute: 1 } }] });
    const { body } = await execute(t.app, calls('T', 2));
    const error = body.results[1].error;
    expect(error).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    expect(error.retry_after_ms).toBe(60_000);
    t.clock.advance(error.retry_after_ms - 1);
    expect(statuses((await execute(t.app, calls('T', 1, 'x'))).body)).toEqual(['RATE_LIMITED']);
    t.clock.advance(1);
    expect(statuses((await execute(t.app, calls('T', 1, 'y'))).body)).toEqual(['success']);
  });

  it('a tool without a limit of its own inherits defaults.rate_limit; with none anywhere there is no limit', async () => {
    t = await buildTestApp({
      builtins: false,
      tools: [slowTool('T', { safe: true, ms: 1 })],
      config: { defaults: { rate_limit: { per_minute: 2 } } },
    });
    expect(statuses((await execute(t.app, calls('T', 3))).body)).toEqual(['success', 'success', 'RATE_LIMITED']);
    await t.close();
    t = await buildTestApp({ builtins: false, tools: [slowTool('T', { safe: true, ms: 1 })] });
    expect(statuses((await execute(t.app, calls('T', 30))).body).every((s: string) => s === 'success')).toBe(true);
  });

  it("a built-in tool takes rate_limit from the config file, and a key's own limit overrides the tool's", async () => {
    t = await buildTestApp({ config: { keys: KEYS, builtins: { LS: { rate_limit: { per_minute: 3 } } } } });
    const ls = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, name: 'LS', arguments: {} }));
    expect(statuses((await execute(t.app, ls(4, 'a'), as(KEY.a))).body)).toEqual(['success', 'success', 'success', 'RATE_LIMITED']);
    expect(statuses((await execute(t.app, ls(2, 'c'), as(KEY.capped))).body)).toEqual(['success', 'RATE_LIMITED']);
  });
});
