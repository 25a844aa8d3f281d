import { afterEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/tools/tool.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { Timeline, slowTool } from '../../helpers/tools.js';

/**
 * The limits' defaults, observed end to end with no limits
 * configured — body 1 MiB (413 over it), 50,000 chars per string argument,
 * 8 concurrent calls per batch, tool timeout 30 s.
 */

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const echo: Tool = {
  name: 'Echo',
  description: 'Echoes the length of its text.',
  parameters: { type: 'object', properties: { text: { type: 'string' }, nested: { type: 'object' } } },
  concurrencySafe: true,
  async run(args) {
    return { text: String((args.text as string | undefined)?.length ?? 0) };
  },
};

/** A JSON body of exactly `size` bytes holding an empty batch. */
function bodyOf(size: number): string {
  const shell = JSON.stringify({ tool_calls: [], pad: '' });
  return JSON.stringify({ tool_calls: [], pad: 'x'.repeat(size - shell.length) });
}

describe('the configuration defaults, end to end', () => {
  it('body: exactly 1 MiB is read; one byte more is 413 PAYLOAD_TOO_LARGE', async () => {
    t = await buildTestApp();
    const post = (payload: string) =>
      t!.app.inject({ method: 'POST', url: '/execute', headers: { 'content-type': 'application/json' }, payload });
    const exact = await post(bodyOf(1_048_576));
    expect(exact.statusCode).toBe(200);
    expect(exact.json()).toEqual({ results: [], messages: [] });
    const over = await post(bodyOf(1_048_577));
    expect(over.statusCode).toBe(413);
    expect(over.json().error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('string arguments: 50,000 characters pass; 50,001 are ARG_TOO_LARGE, at any depth', async () => {
    t = await buildTestApp({ builtins: false, tools: [echo] });
    const { body } = await execute(t.app, [
      { id: 'ok', name: 'Echo', arguments: { text: 'y'.repeat(50_000) } },
      { id: 'over', name: 'Echo', arguments: { text: 'y'.repeat(50_001) } },
      { id: 'deep', name: 'Echo', arguments: { nested: { list: ['y'.repeat(50_001)] } } },
    ]);
    expect(body.results[0]).toMatchObject({ status: 'success', text: '50000' });
    expect(body.results[1].error).toMatchObject({ code: 'ARG_TOO_LARGE', retryable: false });
    expect(body.results[2].error.code).toBe('ARG_TOO_LARGE');
  });

  it('file content has a limit of its own, by default the body limit: a 200,000-character Write and Edit succeed, other strings stay at 50,000', async () => {
    t = await buildTestApp();
    const big = 'x'.repeat(200_000);
    const { body } = await execute(t.app, [
      { id: 'w', name: 'Write', arguments: { path: 'big.txt', content: big } },
      { id: 'e', name: 'Edit', arguments: { path: 'big.txt', old_string: big, new_string: `${big}y` } },
      { id: 'p', name: 'Write', arguments: { path: 'p'.repeat(50_001), content: 'x' } },
      { id: 'r', name: 'Grep', arguments: { pattern: 'x'.repeat(50_001) } },
    ]);
    expect(body.results.slice(0, 2).map((r: { status: string }) => r.status)).toEqual(['success', 'success']);
    for (const r of body.results.slice(2)) {
      expect(r.error).toMatchObject({ code: 'ARG_TOO_LARGE', details: { limit: 50_000, setting: 'limits.arg_chars' } });
    }
  });

  it('max_arg_chars per tool: over it ARG_TOO_LARGE names the limit and the setting; other tools stay at 50,000', async () => {
    t = await buildTestApp({
      config: {
        builtins: { Write: { max_arg_chars: 1_000 } },
        tools: [
          {
            name: 'Hook',
            description: 'A webhook.',
            parameters: { type: 'object' },
            http: { method: 'POST', url: 'http://127.0.0.1:9/hook' },
            max_arg_chars: 10,
          },
        ],
      },
    });
    const { body } = await execute(t.app, [
      { id: 'w', name: 'Write', arguments: { path: 'a.txt', content: 'x'.repeat(1_001) } },
      { id: 'h', name: 'Hook', arguments: { note: 'x'.repeat(11) } },
      { id: 'ok', name: 'Write', arguments: { path: 'b.txt', content: 'x'.repeat(1_000) } },
      { id: 'g', name: 'Grep', arguments: { pattern: 'x'.repeat(50_001) } },
    ]);
    const [write, hook, ok, grep] = body.results;
    expect(write.error).toMatchObject({
      code: 'ARG_TOO_LARGE',
      details: { path: '/content', limit: 1_000, setting: 'builtins.Write.max_arg_chars' },
    });
    expect(write.error.message).toContain('1000 characters, the limit set by builtins.Write.max_arg_chars');
    expect(write.error.suggestion).toMatch(/Edit/);
    expect(hook.error).toMatchObject({ code: 'ARG_TOO_LARGE', details: { limit: 10, setting: 'max_arg_chars of Hook' } });
    expect(ok.status).toBe('success');
    expect(grep.error).toMatchObject({ code: 'ARG_TOO_LARGE', details: { limit: 50_000, setting: 'limits.arg_chars' } });
    expect(grep.error.suggestion).toContain('max_arg_chars of Grep');
  });

  it('concurrency: at most 8 concurrency-safe calls of a batch run at once', async () => {
    const timeline = new Timeline();
    t = await buildTestApp({ builtins: false, tools: [slowTool('R', { safe: true, ms: 60, timeline })] });
    const { body } = await execute(
      t.app,
      Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, name: 'R', arguments: {} })),
    );
    expect(body.results).toHaveLength(12);
    expect(timeline.maxConcurrent).toBe(8);
  });

  it('tool timeout: 30 s unless the tool sets its own', async () => {
    t = await buildTestApp({
      builtins: false,
      tools: [slowTool('Plain', { safe: true }), slowTool('Own', { safe: true, timeoutMs: 5_000 })],
    });
    const plain = (await t.app.inject({ method: 'GET', url: '/tools/Plain' })).json();
    const own = (await t.app.inject({ method: 'GET', url: '/tools/Own' })).json();
    expect(plain['x-toolgate'].timeout_ms).toBe(30_000);
    expect(own['x-toolgate'].timeout_ms).toBe(5_000);
  });
});
