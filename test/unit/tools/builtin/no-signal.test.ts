import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, run, type Sandbox } from '../fixtures.js';

/**
 * The built-in file tools only check between steps whether the call's
 * deadline has passed, which `ToolContext.aborted` says without making the
 * AbortSignal the pipeline makes only when a tool asks for it.
 */
describe('built-in file tools make no AbortSignal', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
    await sb.put({ 'a.txt': 'alpha\n', 'src/b.ts': 'const b = 1;\n' });
  });
  afterEach(() => sb.cleanup());

  const noSignal = () => {
    const ctx = sb.ctx();
    Object.defineProperty(ctx, 'signal', {
      get() {
        throw new Error('the tool asked for the signal');
      },
    });
    return ctx;
  };

  it.each([
    ['Read', { path: 'a.txt' }],
    ['LS', { path: '.' }],
    ['Glob', { pattern: '**/*.ts' }],
    ['Grep', { pattern: 'const' }],
    ['Write', { path: 'c.txt', content: 'gamma\n', expected_mtime_ms: null, expected_size_bytes: null }],
    ['Edit', { path: 'a.txt', old_string: 'alpha', new_string: 'beta' }],
  ] as const)('%s', async (tool, args) => {
    const out = await run(sb, tool, args, noSignal());
    expect(out.error).toBeUndefined();
  });

  it('an aborted call still stops at its first check', async () => {
    const controller = new AbortController();
    controller.abort();
    for (const [tool, args] of [
      ['LS', { path: '.' }],
      ['Glob', { pattern: '**/*.ts' }],
      ['Grep', { pattern: 'const' }],
      ['Edit', { path: 'a.txt', old_string: 'alpha', new_string: 'beta' }],
    ] as const) {
      await expect(run(sb, tool, args, sb.ctx(controller.signal)), tool).rejects.toMatchObject({ code: 'TIMEOUT' });
    }
    expect(await sb.read('a.txt')).toBe('alpha\n');
  });
});
