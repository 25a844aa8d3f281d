import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/protocol/errors.js';
import type { Tool } from '../../../../src/tools/tool.js';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';
import { faultyTool } from '../../../helpers/tools.js';

/** The per-call gates run in their order; gate 5, lock injection, for Edit and Write. */

const call = (id: string, name: string, args: unknown = {}) => ({ id, name, arguments: args });

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A tool with a schema, a policy rule and a counter, to stop calls at chosen gates. */
function gated(name: string, counter: { runs: number }, safe = true): Tool {
  return {
    name,
    description: `Gate test tool ${name}.`,
    parameters: {
      type: 'object',
      properties: { n: { type: 'integer' }, s: { type: 'string' }, mode: { type: 'string' } },
      additionalProperties: false,
    },
    concurrencySafe: safe,
    async run(args) {
      counter.runs += 1;
      if (args.mode === 'fail') throw new GatewayError('EXECUTION_FAILED');
      return { text: 'ran' };
    },
  };
}

async function openBreaker(app: TestApp['app'], name: string): Promise<void> {
  for (let i = 0; i < 3; i++) await execute(app, [call(`trip-${name}-${i}`, name, { mode: 'fail' })]);
}

describe('gate order: the first gate that stops a call gives its answer', () => {
  it('parse before lookup: arguments that are not JSON for an unknown tool are INVALID_JSON', async () => {
    t = await buildTestApp();
    const { body } = await execute(t.app, [call('a', 'Nope', '{not json')]);
    expect(body.results[0].error.code).toBe('INVALID_JSON');
  });

  it('lookup before validate and permission: an unknown tool is UNKNOWN_TOOL even when a deny rule matches everything', async () => {
    t = await buildTestApp({ config: { policy: { rules: [{ tool: '*', decision: 'deny' }] } } });
    const { body } = await execute(t.app, [call('a', 'Nope', { n: 'x' })]);
    expect(body.results[0].error.code).toBe('UNKNOWN_TOOL');
  });

  it('validate before permission: a denied tool with bad arguments is INVALID_ARGS; with an oversized string ARG_TOO_LARGE', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({
      tools: [gated('G', counter)],
      config: { limits: { arg_chars: 10 }, policy: { rules: [{ tool: 'G', decision: 'deny' }] } },
    });
    const { body } = await execute(t.app, [call('a', 'G', { n: 'x' }), call('b', 'G', { s: 'x'.repeat(11) }), call('c', 'G', { n: 1 })]);
    expect(body.results.map((r: any) => r.error.code)).toEqual(['INVALID_ARGS', 'ARG_TOO_LARGE', 'PERMISSION_DENIED']);
    expect(counter.runs).toBe(0);
  });

  it('permission before the breaker: a denied call to an open tool is PERMISSION_DENIED, an ASK one APPROVAL_REQUIRED', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({
      tools: [gated('G', counter)],
      config: {
        policy: {
          rules: [
            { tool: 'G', when: { s: '^deny$' }, decision: 'deny' },
            { tool: 'G', when: { s: '^ask$' }, decision: 'ask' },
          ],
        },
      },
    });
    await openBreaker(t.app, 'G');
    const { body } = await execute(t.app, [call('a', 'G', { s: 'deny' }), call('b', 'G', { s: 'ask' }), call('c', 'G', { s: 'other' })]);
    expect(body.results.map((r: any) => r.error.code)).toEqual(['PERMISSION_DENIED', 'APPROVAL_REQUIRED', 'CIRCUIT_OPEN']);
  });

  it('breaker before rate limit: an open tool answers CIRCUIT_OPEN and uses no rate token', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({ tools: [gated('G', counter)], config: { defaults: { rate_limit: { per_minute: 4 } } } });
    await openBreaker(t.app, 'G'); // 3 tokens used by the calls that failed
    const { body } = await execute(t.app, [call('a', 'G'), call('b', 'G'), call('c', 'G')]);
    expect(body.results.map((r: any) => r.error.code)).toEqual(['CIRCUIT_OPEN', 'CIRCUIT_OPEN', 'CIRCUIT_OPEN']);
    await t.app.inject({ method: 'POST', url: '/circuits/G/reset' });
    const after = await execute(t.app, [call('d', 'G'), call('e', 'G')]);
    // The one token left was not spent by the refused calls.
    expect(after.body.results.map((r: any) => r.status)).toEqual(['success', 'error']);
    expect(after.body.results[1].error.code).toBe('RATE_LIMITED');
  });

  it('a call stopped at any gate does not run, and later calls of the batch still do', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({
      tools: [gated('G', counter, false)],
      config: { policy: { rules: [{ tool: 'G', when: { s: '^no$' }, decision: 'deny' }] } },
    });
    const { body } = await execute(t.app, [
      call('a', 'G', '[]'),
      call('b', 'G', { n: 'x' }),
      call('c', 'G', { s: 'no' }),
      call('d', 'G', { s: 'yes' }),
    ]);
    expect(body.results.map((r: any) => r.status)).toEqual(['error', 'error', 'error', 'success']);
    expect(counter.runs).toBe(1);
  });
});

describe("lock injection: an Edit or Write carries the session's last Read of its file", () => {
  async function readThenChange(app: TestApp['app'], workspace: string, session: string): Promise<string> {
    const file = join(workspace, 'f.txt');
    await writeFile(file, 'hello\n');
    await execute(app, { session_id: session, tool_calls: [call('r', 'Read', { path: 'f.txt' })] });
    // Same size, new content and mtime: only the mtime tells the change.
    await writeFile(file, 'jello\n');
    const later = new Date(Date.now() + 5_000);
    await utimes(file, later, later);
    return file;
  }

  it("Write, like Edit, gets the lock of the session's last Read: CONFLICT and the file untouched", async () => {
    t = await buildTestApp();
    const file = await readThenChange(t.app, t.workspace, 's');
    const { body } = await execute(t.app, { session_id: 's', tool_calls: [call('w', 'Write', { path: 'f.txt', content: 'overwrite\n' })] });
    expect(body.results[0].error).toMatchObject({ code: 'CONFLICT', retryable: false });
    expect(await readFile(file, 'utf8')).toBe('jello\n');
  });

  it('a caller who gave only expected_size_bytes still gets the mtime injected (no expected_mtime_ms given)', async () => {
    t = await buildTestApp();
    const file = await readThenChange(t.app, t.workspace, 's');
    const edit = await execute(t.app, {
      session_id: 's',
      tool_calls: [call('e', 'Edit', { path: 'f.txt', old_string: 'jello', new_string: 'yello', expected_size_bytes: 6 })],
    });
    expect(edit.body.results[0].error.code).toBe('CONFLICT');
    const write = await execute(t.app, {
      session_id: 's',
      tool_calls: [call('w', 'Write', { path: 'f.txt', content: 'x\n', expected_size_bytes: 6 })],
    });
    expect(write.body.results[0].error.code).toBe('CONFLICT');
    expect(await readFile(file, 'utf8')).toBe('jello\n');
  });

  it("the caller's own expected_size_bytes is kept, not replaced by the injected one", async () => {
    t = await buildTestApp();
    const file = join(t.workspace, 'g.txt');
    await writeFile(file, 'hello\n');
    await execute(t.app, { session_id: 's', tool_calls: [call('r', 'Read', { path: 'g.txt' })] });
    // The file is as the Read saw it, but the caller says it expects another size: the caller's word counts.
    const { body } = await execute(t.app, {
      session_id: 's',
      tool_calls: [call('e', 'Edit', { path: 'g.txt', old_string: 'hello', new_string: 'bye', expected_size_bytes: 99 })],
    });
    expect(body.results[0].error.code).toBe('CONFLICT');
    expect(body.results[0].error.details.expected).toMatchObject({ file_size_bytes: 99 });
  });

  it('a caller who gave expected_mtime_ms is not overridden by the session lock', async () => {
    t = await buildTestApp();
    const file = await readThenChange(t.app, t.workspace, 's');
    const now = await stat(file);
    const { body } = await execute(t.app, {
      session_id: 's',
      tool_calls: [call('e', 'Edit', { path: 'f.txt', old_string: 'jello', new_string: 'yello', expected_mtime_ms: now.mtimeMs })],
    });
    expect(body.results[0].status).toBe('success');
    expect(await readFile(file, 'utf8')).toBe('yello\n');
  });

  it('without a Read in the session there is nothing to inject and the write runs', async () => {
    t = await buildTestApp();
    await writeFile(join(t.workspace, 'h.txt'), 'one\n');
    const { body } = await execute(t.app, {
      session_id: 'fresh',
      tool_calls: [call('e', 'Edit', { path: 'h.txt', old_string: 'one', new_string: 'two' })],
    });
    expect(body.results[0].status).toBe('success');
  });
});

describe("gate 8: a tool's own errors come back as they are", () => {
  it('NOT_FOUND, CONFLICT and EXECUTION_FAILED with their retryable flags', async () => {
    t = await buildTestApp({ tools: [faultyTool('F')] });
    await writeFile(join(t.workspace, 'x.txt'), 'a\n');
    const { body } = await execute(t.app, [
      call('1', 'Read', { path: 'missing.txt' }),
      call('2', 'F', { mode: 'not_found' }),
      call('3', 'Edit', { path: 'x.txt', old_string: 'a', new_string: 'b', expected_mtime_ms: 1 }),
      call('4', 'F', { mode: 'fail' }),
    ]);
    expect(body.results.map((r: any) => [r.error.code, r.error.retryable])).toEqual([
      ['NOT_FOUND', false],
      ['NOT_FOUND', false],
      ['CONFLICT', false],
      ['EXECUTION_FAILED', false],
    ]);
  });
});
