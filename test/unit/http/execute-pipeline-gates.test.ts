import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { slowTool } from '../../helpers/tools.js';
import { call } from './execute-pipeline-call.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('gates: each stops a call with its own error code', () => {
  it('unknown tool: UNKNOWN_TOOL with the allowed names', async () => {
    t = await buildTestApp();
    const { body } = await execute(t.app, [call('1', 'Nope')]);
    expect(body.results[0].error).toMatchObject({ code: 'UNKNOWN_TOOL', retryable: false });
    expect(body.results[0].error.details.available).toEqual(['Edit', 'Glob', 'Grep', 'LS', 'Read', 'Write']);
  });

  it('schema violations: INVALID_ARGS with every error as {path, message}', async () => {
    t = await buildTestApp();
    const { body } = await execute(t.app, [call('1', 'Read', { path: 5, offset: 'x', extra: true })]);
    const error = body.results[0].error;
    expect(error.code).toBe('INVALID_ARGS');
    expect(error.details.errors.length).toBeGreaterThanOrEqual(2);
    for (const e of error.details.errors) expect(Object.keys(e).sort()).toEqual(['message', 'path']);
  });

  it('a string argument over the limit: ARG_TOO_LARGE, before the schema', async () => {
    t = await buildTestApp({ config: { limits: { arg_chars: 100 } } });
    const { body } = await execute(t.app, [
      call('1', 'Write', { path: 'a'.repeat(101), content: 'x' }),
      call('2', 'Write', { path: 'b'.repeat(100), content: 'x' }),
    ]);
    expect(body.results[0].error.code).toBe('ARG_TOO_LARGE');
    expect(body.results[1].status).toBe('success');
  });

  it('a policy rule on the arguments denies with PERMISSION_DENIED and nothing is written', async () => {
    t = await buildTestApp({ config: { policy: { rules: [{ tool: 'Write', when: { path: '\\.env$' }, decision: 'deny' }] } } });
    const { body } = await execute(t.app, [call('1', 'Write', { path: 'prod.env', content: 'x' })]);
    expect(body.results[0].error).toMatchObject({ code: 'PERMISSION_DENIED', retryable: false });
    await expect(stat(join(t.workspace, 'prod.env'))).rejects.toThrow();
  });

  it('a rule that cannot classify its argument denies (fail closed)', async () => {
    t = await buildTestApp({
      tools: [slowTool('Sh', { safe: false, ms: 1 })],
      config: { policy: { rules: [{ tool: 'Sh', when: { command: '^ls' }, decision: 'allow' }] } },
    });
    const { body } = await execute(t.app, [call('1', 'Sh', { command: ['rm', '-rf', '/'] })]);
    expect(body.results[0].error.code).toBe('PERMISSION_DENIED');
  });

  it('deny wins over allow whatever the rule order', async () => {
    t = await buildTestApp({
      config: {
        policy: {
          rules: [
            { tool: 'Write', decision: 'deny' },
            { tool: 'W*', decision: 'allow' },
          ],
        },
      },
    });
    const { body } = await execute(t.app, [call('1', 'Write', { path: 'a', content: 'x' })]);
    expect(body.results[0].error.code).toBe('PERMISSION_DENIED');
  });

  it('ASK: APPROVAL_REQUIRED with an approval id; once approved the same call runs once', async () => {
    t = await buildTestApp({ config: { builtins: { Write: { requires_approval: true } } } });
    const first = await execute(t.app, [call('1', 'Write', { path: 'a.txt', content: 'hello' })]);
    const error = first.body.results[0].error;
    expect(error).toMatchObject({ code: 'APPROVAL_REQUIRED', retryable: true });
    const id = error.details.approval_id as string;
    const pending = await t.app.inject({ method: 'GET', url: '/approvals' });
    expect(pending.json().approvals.map((a: { id: string }) => a.id)).toEqual([id]);
    const again = await execute(t.app, [call('2', 'Write', { path: 'a.txt', content: 'hello' })]);
    expect(again.body.results[0].error.details.approval_id).toBe(id);
    const decided = await t.app.inject({ method: 'POST', url: `/approvals/${id}`, payload: { decision: 'approve' } });
    expect(decided.statusCode).toBe(200);
    const run = await execute(t.app, [call('3', 'Write', { path: 'a.txt', content: 'hello' })]);
    expect(run.body.results[0].status).toBe('success');
    expect(await readFile(join(t.workspace, 'a.txt'), 'utf8')).toBe('hello');
    const next = await execute(t.app, [call('4', 'Write', { path: 'a.txt', content: 'hello' })]);
    expect(next.body.results[0].error.code).toBe('APPROVAL_REQUIRED');
  });

  it('ASK denied by an operator: PERMISSION_DENIED', async () => {
    t = await buildTestApp({ config: { builtins: { Write: { requires_approval: true } } } });
    const first = await execute(t.app, [call('1', 'Write', { path: 'a.txt', content: 'x' })]);
    const id = first.body.results[0].error.details.approval_id as string;
    await t.app.inject({ method: 'POST', url: `/approvals/${id}`, payload: { decision: 'deny', reason: 'not today' } });
    const again = await execute(t.app, [call('2', 'Write', { path: 'a.txt', content: 'x' })]);
    expect(again.body.results[0].error.code).toBe('PERMISSION_DENIED');
    expect(again.body.results[0].error.message).toContain('not today');
  });

  it('rate limit per key and tool: RATE_LIMITED with a truthful retry_after_ms', async () => {
    t = await buildTestApp({ config: { builtins: { LS: { rate_limit: { per_minute: 2 } } } } });
    const { body } = await execute(t.app, [call('1', 'LS', { path: '.' }), call('2', 'LS', { path: '.' }), call('3', 'LS', { path: '.' })]);
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(['success', 'success', 'error']);
    expect(body.results[2].error).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    expect(body.results[2].error.retry_after_ms).toBeGreaterThan(25_000);
    expect(body.results[2].error.retry_after_ms).toBeLessThanOrEqual(30_000);
    t.clock.advance(30_000);
    const later = await execute(t.app, [call('4', 'LS', { path: '.' })]);
    expect(later.body.results[0].status).toBe('success');
  });
});

describe("optimistic lock: an Edit of a file changed since the session's Read is a CONFLICT", () => {
  it('Read, the file changes behind the gateway, Edit → CONFLICT and the file untouched', async () => {
    t = await buildTestApp();
    const file = join(t.workspace, 'notes.txt');
    await writeFile(file, 'alpha\nbeta\n');
    const read = await execute(t.app, { session_id: 's1', tool_calls: [call('r', 'Read', { path: 'notes.txt' })] });
    expect(read.body.results[0].data).toMatchObject({ file_size_bytes: 11 });
    await writeFile(file, 'alpha\nBETA changed by someone else\n');
    const later = new Date(Date.now() + 5_000);
    await utimes(file, later, later);
    const before = await readFile(file, 'utf8');
    const edit = await execute(t.app, {
      session_id: 's1',
      tool_calls: [call('e', 'Edit', { path: 'notes.txt', old_string: 'alpha', new_string: 'gamma' })],
    });
    expect(edit.body.results[0].error).toMatchObject({ code: 'CONFLICT', retryable: false });
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it("the lock is per session: another session edits without the first one's lock", async () => {
    t = await buildTestApp();
    const file = join(t.workspace, 'a.txt');
    await writeFile(file, 'one\n');
    await execute(t.app, { session_id: 's1', tool_calls: [call('r', 'Read', { path: 'a.txt' })] });
    await writeFile(file, 'one two\n');
    const edit = await execute(t.app, {
      session_id: 's2',
      tool_calls: [call('e', 'Edit', { path: 'a.txt', old_string: 'two', new_string: 'three' })],
    });
    expect(edit.body.results[0].status).toBe('success');
  });

  it('Read then two Edits in a row succeed: an Edit refreshes the session lock', async () => {
    t = await buildTestApp();
    await writeFile(join(t.workspace, 'a.txt'), 'one two three\n');
    const { body } = await execute(t.app, [
      call('r', 'Read', { path: './a.txt' }),
      call('e1', 'Edit', { path: 'a.txt', old_string: 'one', new_string: '1' }),
      call('e2', 'Edit', { path: 'a.txt', old_string: 'two', new_string: '2' }),
    ]);
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(['success', 'success', 'success']);
    expect(await readFile(join(t.workspace, 'a.txt'), 'utf8')).toBe('1 2 three\n');
  });
});
