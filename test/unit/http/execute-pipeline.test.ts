import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { Timeline, faultyTool, slowTool } from '../../helpers/tools.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });

describe('orchestration: safe calls run together, unsafe ones alone, results in request order', () => {
  it('[safe, safe, unsafe, safe] runs as (safe, safe) then (unsafe) then (safe), results in request order', async () => {
    const timeline = new Timeline();
    t = await buildTestApp({
      tools: [slowTool('SlowRead', { safe: true, ms: 60, timeline }), slowTool('SlowWrite', { safe: false, ms: 60, timeline })],
    });
    const { body } = await execute(t.app, [call('a', 'SlowRead'), call('b', 'SlowRead'), call('c', 'SlowWrite'), call('d', 'SlowRead')]);
    expect(body.results.map((r: { tool_call_id: string }) => r.tool_call_id)).toEqual(['a', 'b', 'c', 'd']);
    expect(timeline.overlapping('a')).toEqual(['b']);
    expect(timeline.overlapping('c')).toEqual([]);
    expect(timeline.overlapping('d')).toEqual([]);
    const order = timeline.events.filter((e) => e.kind === 'start').map((e) => e.id);
    expect(order.indexOf('c')).toBeGreaterThan(order.indexOf('b'));
    expect(order.indexOf('d')).toBeGreaterThan(order.indexOf('c'));
  });

  it('unsafe calls never overlap each other', async () => {
    const timeline = new Timeline();
    t = await buildTestApp({ tools: [slowTool('W', { safe: false, ms: 20, timeline })] });
    await execute(
      t.app,
      ['1', '2', '3', '4'].map((id) => call(id, 'W')),
    );
    expect(timeline.maxConcurrent).toBe(1);
  });

  it('concurrency within a batch is bounded by limits.concurrency', async () => {
    const timeline = new Timeline();
    t = await buildTestApp({ tools: [slowTool('R', { safe: true, ms: 40, timeline })], config: { limits: { concurrency: 3 } } });
    const { body } = await execute(
      t.app,
      Array.from({ length: 10 }, (_, i) => call(`c${i}`, 'R')),
    );
    expect(body.results).toHaveLength(10);
    expect(timeline.maxConcurrent).toBe(3);
  });

  it('a tool that throws fails that call only, with EXECUTION_FAILED and no internals', async () => {
    t = await buildTestApp({ tools: [faultyTool('F')] });
    const { body } = await execute(t.app, [call('1', 'F', { mode: 'throw' }), call('2', 'F', { mode: 'ok' })]);
    expect(body.results[0].error).toMatchObject({ code: 'EXECUTION_FAILED', retryable: false });
    expect(JSON.stringify(body)).not.toContain('/secret/path');
    expect(body.results[1].status).toBe('success');
  });
});

describe('timeouts', () => {
  it('a tool that ignores its signal still yields TIMEOUT at the deadline', async () => {
    t = await buildTestApp({ tools: [faultyTool('H', { timeoutMs: 100 })] });
    const started = Date.now();
    const { body } = await execute(t.app, [call('1', 'H', { mode: 'hang' })]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(body.results[0].error).toMatchObject({ code: 'TIMEOUT', retryable: true });
  });

  it('the request timeout_ms lowers the tool timeout, and a late result is dropped', async () => {
    t = await buildTestApp({ tools: [faultyTool('L', { timeoutMs: 10_000 })] });
    const { body } = await execute(t.app, { timeout_ms: 50, tool_calls: [call('1', 'L', { mode: 'late' })] });
    expect(body.results[0].error.code).toBe('TIMEOUT');
    await new Promise((r) => setTimeout(r, 400));
    expect(JSON.stringify(body)).not.toContain('late result');
  });

  it('timeout_ms never raises a tool timeout', async () => {
    t = await buildTestApp({ tools: [faultyTool('H', { timeoutMs: 80 })] });
    const started = Date.now();
    const { body } = await execute(t.app, { timeout_ms: 60_000, tool_calls: [call('1', 'H', { mode: 'hang' })] });
    expect(body.results[0].error.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
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

describe('circuit breaker: open after failures, one probe after recovery, on a fake clock', () => {
  it('3 failures open it: CIRCUIT_OPEN, hidden from GET /tools; after recovery one probe closes it', async () => {
    t = await buildTestApp({ builtins: false, tools: [faultyTool('F', { safe: true })] });
    for (let i = 0; i < 3; i++) await execute(t.app, [call(`f${i}`, 'F', { mode: 'fail' })]);
    const open = await execute(t.app, [call('x', 'F', { mode: 'ok' })]);
    expect(open.body.results[0].error).toMatchObject({ code: 'CIRCUIT_OPEN', retryable: true, retry_after_ms: 300_000 });
    const listed = await t.app.inject({ method: 'GET', url: '/tools' });
    expect(listed.json().tools).toEqual([]);
    t.clock.advance(300_000);
    const listedAgain = await t.app.inject({ method: 'GET', url: '/tools' });
    expect(listedAgain.json().tools).toHaveLength(1);
    const probe = await execute(t.app, [call('p', 'F', { mode: 'ok' }), call('q', 'F', { mode: 'ok' })]);
    expect(probe.body.results[0].status).toBe('success');
    expect(probe.body.results[1].error.code).toBe('CIRCUIT_OPEN');
    const closed = await execute(t.app, [call('z', 'F', { mode: 'ok' })]);
    expect(closed.body.results[0].status).toBe('success');
  });

  it('a failed probe reopens it with the timer restarted', async () => {
    t = await buildTestApp({ builtins: false, tools: [faultyTool('F')] });
    for (let i = 0; i < 3; i++) await execute(t.app, [call(`f${i}`, 'F', { mode: 'fail' })]);
    t.clock.advance(300_000);
    await execute(t.app, [call('p', 'F', { mode: 'fail' })]);
    t.clock.advance(299_000);
    const still = await execute(t.app, [call('x', 'F', { mode: 'ok' })]);
    expect(still.body.results[0].error.code).toBe('CIRCUIT_OPEN');
    expect(still.body.results[0].error.retry_after_ms).toBe(1_000);
  });

  it('caller mistakes never trip it', async () => {
    t = await buildTestApp({ builtins: false, tools: [faultyTool('F')] });
    for (let i = 0; i < 5; i++) await execute(t.app, [call(`n${i}`, 'F', { mode: 'not_found' })]);
    for (let i = 0; i < 5; i++) await execute(t.app, [call(`i${i}`, 'F', { mode: 'bogus' })]);
    const { body } = await execute(t.app, [call('ok', 'F', { mode: 'ok' })]);
    expect(body.results[0].status).toBe('success');
  });

  it('POST /circuits/{tool}/reset forces it closed', async () => {
    t = await buildTestApp({ builtins: false, tools: [faultyTool('F')] });
    for (let i = 0; i < 3; i++) await execute(t.app, [call(`f${i}`, 'F', { mode: 'fail' })]);
    const circuits = await t.app.inject({ method: 'GET', url: '/circuits' });
    expect(circuits.json().circuits).toEqual([{ tool: 'F', state: 'open', failures: 3, reopens_at: t.clock.now() + 300_000 }]);
    const reset = await t.app.inject({ method: 'POST', url: '/circuits/F/reset' });
    expect(reset.json()).toMatchObject({ tool: 'F', state: 'closed', failures: 0 });
    const { body } = await execute(t.app, [call('ok', 'F', { mode: 'ok' })]);
    expect(body.results[0].status).toBe('success');
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
