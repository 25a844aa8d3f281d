import { createHash } from 'node:crypto';
import { writeFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/tools/tool.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { bigOutputTool, faultyTool, slowTool } from '../../helpers/tools.js';

/** The session id, the result and message shapes, and call-id replay (docs/api.md). */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const KEY = 'tg_session-key';
const auth = { authorization: `Bearer ${KEY}` };
const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('session_id: the key id unless the body or x-session-id names one', () => {
  it("defaults to the caller's key id: a call id replays under session_id = the key id, and under no other", async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({
      tools: [slowTool('W', { safe: false, ms: 1, counter })],
      config: { keys: [{ id: 'agent-key', sha256: sha256(KEY), tenant: 'acme', scopes: ['execute'] }] },
    });
    await execute(t.app, [call('c1', 'W')], auth);
    const other = await execute(t.app, { session_id: 'not-the-key', tool_calls: [call('c1', 'W')] }, auth);
    expect(other.body.results[0].replayed).toBe(false);
    const same = await execute(t.app, { session_id: 'agent-key', tool_calls: [call('c1', 'W')] }, auth);
    expect(same.body.results[0].replayed).toBe(true);
    expect(counter.runs).toBe(2);
  });

  it('the x-session-id header names the session for replay like the body field', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({ tools: [slowTool('W', { safe: false, ms: 1, counter })] });
    await execute(t.app, [call('c1', 'W')], { 'x-session-id': 'conv-1' });
    expect((await execute(t.app, [call('c1', 'W')], { 'x-session-id': 'conv-1' })).body.results[0].replayed).toBe(true);
    expect((await execute(t.app, { session_id: 'conv-1', tool_calls: [call('c1', 'W')] })).body.results[0].replayed).toBe(true);
    expect((await execute(t.app, [call('c1', 'W')], { 'x-session-id': 'conv-2' })).body.results[0].replayed).toBe(false);
    expect((await execute(t.app, [call('c1', 'W')])).body.results[0].replayed).toBe(false);
    expect(counter.runs).toBe(3);
  });

  it('the x-session-id header scopes the Read→Edit lock cache', async () => {
    t = await buildTestApp();
    const file = join(t.workspace, 'a.txt');
    await writeFile(file, 'one two\n');
    await execute(t.app, [call('r', 'Read', { path: 'a.txt' })], { 'x-session-id': 'conv-1' });
    await writeFile(file, 'one two three\n');
    const later = new Date(Date.now() + 5_000);
    await utimes(file, later, later);
    const elsewhere = await execute(t.app, [call('e1', 'Edit', { path: 'a.txt', old_string: 'three', new_string: '3' })], {
      'x-session-id': 'conv-2',
    });
    expect(elsewhere.body.results[0].status).toBe('success');
    const stale = await execute(t.app, [call('e2', 'Edit', { path: 'a.txt', old_string: 'one', new_string: '1' })], {
      'x-session-id': 'conv-1',
    });
    expect(stale.body.results[0].error.code).toBe('CONFLICT');
  });
});

describe('call-id replay: one call id is one call', () => {
  it('the same id with a different tool name is IDEMPOTENCY_MISMATCH, and nothing runs', async () => {
    const a = { runs: 0 };
    const b = { runs: 0 };
    t = await buildTestApp({
      tools: [slowTool('W1', { safe: false, ms: 1, counter: a }), slowTool('W2', { safe: false, ms: 1, counter: b })],
    });
    await execute(t.app, [call('same', 'W1', { v: 1 })]);
    const { body } = await execute(t.app, [call('same', 'W2', { v: 1 })]);
    expect(body.results[0].error).toMatchObject({ code: 'IDEMPOTENCY_MISMATCH', retryable: false });
    expect([a.runs, b.runs]).toEqual([1, 0]);
  });

  it('the same arguments in another key order are the same call: replayed, not a mismatch', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({ tools: [slowTool('W', { safe: false, ms: 1, counter })] });
    await execute(t.app, [call('same', 'W', { a: 1, b: { c: 2, d: 3 } })]);
    const { body } = await execute(t.app, [call('same', 'W', { b: { d: 3, c: 2 }, a: 1 })]);
    expect(body.results[0]).toMatchObject({ replayed: true, status: 'success' });
    expect(counter.runs).toBe(1);
  });

  it('the replay record lives 24 h by default: replayed just before, run again at 24 h', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({ tools: [slowTool('W', { safe: false, ms: 1, counter })] });
    await execute(t.app, [call('c', 'W')]);
    t.clock.advance(24 * 3_600_000 - 1);
    expect((await execute(t.app, [call('c', 'W')])).body.results[0].replayed).toBe(true);
    expect(counter.runs).toBe(1);
    t.clock.advance(1);
    expect((await execute(t.app, [call('c', 'W')])).body.results[0].replayed).toBe(false);
    expect(counter.runs).toBe(2);
  });

  it('a request for an id still running waits at most its timeout, then answers a retryable TIMEOUT; the call ran once', async () => {
    const counter = { runs: 0 };
    t = await buildTestApp({ tools: [slowTool('W', { safe: false, ms: 600, counter })] });
    const first = execute(t.app, [call('c', 'W')]);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    const second = await execute(t.app, { timeout_ms: 100, tool_calls: [call('c', 'W')] });
    expect(Date.now() - started).toBeLessThan(450);
    expect(second.body.results[0].error).toMatchObject({ code: 'TIMEOUT', retryable: true });
    expect((await first).body.results[0].status).toBe('success');
    expect(counter.runs).toBe(1);
  });
});

const partialTool: Tool = {
  name: 'Partial',
  description: 'Did part of the work.',
  parameters: { type: 'object', properties: {} },
  concurrencySafe: true,
  async run() {
    return { text: 'first half', partial: true };
  },
};

describe('results and messages: one payload shape, rendered per format', () => {
  it('status is partial when the tool did only part of the work, even with nothing cut', async () => {
    t = await buildTestApp({ tools: [partialTool] });
    const { body } = await execute(t.app, [call('p', 'Partial')]);
    expect(body.results[0]).toMatchObject({ status: 'partial', truncated: null, text: 'first half' });
    expect(body.results[0]).not.toHaveProperty('error');
  });

  it('content is the payload (status, text, data, error, truncated) for errors, replays and cut outputs too — never an internal', async () => {
    t = await buildTestApp({ tools: [faultyTool('F'), slowTool('W', { safe: false, ms: 1 }), bigOutputTool('Big')] });
    await execute(t.app, [call('w', 'W', { v: 1 })]);
    const { body } = await execute(t.app, [
      call('e', 'F', { mode: 'fail' }),
      call('w', 'W', { v: 1 }),
      call('b', 'Big', { size: 60_000 }),
      call('u', 'Nope'),
    ]);
    expect(body.results.map((r: any) => [r.status, r.replayed])).toEqual([
      ['error', false],
      ['success', true],
      ['partial', false],
      ['error', false],
    ]);
    const allowed = ['data', 'error', 'status', 'text', 'truncated'];
    body.messages.forEach((message: any, i: number) => {
      const content = JSON.parse(message.content);
      const result = body.results[i];
      expect(
        Object.keys(content).every((k) => allowed.includes(k)),
        JSON.stringify(content).slice(0, 200),
      ).toBe(true);
      for (const internal of ['tool_call_id', 'name', 'stats', 'replayed']) expect(content).not.toHaveProperty(internal);
      const payload = Object.fromEntries(allowed.filter((k) => k in result).map((k) => [k, result[k]]));
      if (payload.truncated) {
        const { uri, ...visible } = payload.truncated as Record<string, unknown>;
        expect(uri).toMatch(/^file:\/\//);
        payload.truncated = visible;
      }
      expect(content).toEqual(payload);
    });
    expect(JSON.parse(body.messages[2].content).truncated).toEqual({
      original_bytes: expect.any(Number),
      url: expect.stringMatching(/^\/outputs\//),
      sha256: expect.any(String),
    });
    expect(JSON.parse(body.messages[0].content).error).toMatchObject({ code: 'EXECUTION_FAILED', retryable: false });
    expect(body.results[0].error).toMatchObject({ code: 'EXECUTION_FAILED', message: expect.any(String), retryable: false });
  });

  it.each(['openai', 'responses', 'anthropic', 'gemini'])(
    '%s: what the model sees of a cut output names no store path or uri; results keep the uri',
    async (format) => {
      t = await buildTestApp({ tools: [bigOutputTool('Big')] });
      const { body } = await execute(t.app, { format, tool_calls: [call('b', 'Big', { size: 60_000 })] });
      expect(body.results[0].truncated.uri).toMatch(/^file:\/\//);
      const seen = JSON.stringify(body.messages);
      expect(seen).toContain(body.results[0].truncated.url);
      expect(seen).not.toContain('file:');
      expect(seen).not.toContain('"uri"');
      expect(seen).not.toContain(t.workspace);
    },
  );

  it('anthropic: is_error follows the status; gemini: the response is the payload object, in request order', async () => {
    t = await buildTestApp({ tools: [faultyTool('F')] });
    const calls = [call('ok', 'F', { mode: 'ok' }), call('bad', 'F', { mode: 'fail' })];
    const anthropic = (await execute(t.app, { format: 'anthropic', tool_calls: calls })).body;
    expect(anthropic.messages).toHaveLength(1);
    expect(anthropic.messages[0].content.map((b: any) => [b.type, b.tool_use_id, b.is_error])).toEqual([
      ['tool_result', 'ok', false],
      ['tool_result', 'bad', true],
    ]);
    expect(JSON.parse(anthropic.messages[0].content[1].content).error.code).toBe('EXECUTION_FAILED');
    const gemini = (await execute(t.app, { format: 'gemini', tool_calls: calls })).body;
    expect(gemini.messages).toHaveLength(1);
    expect(gemini.messages[0].role).toBe('user');
    expect(
      gemini.messages[0].parts.map((p: any) => [p.functionResponse.id, p.functionResponse.name, p.functionResponse.response.status]),
    ).toEqual([
      ['ok', 'F', 'success'],
      ['bad', 'F', 'error'],
    ]);
    const openai = (await execute(t.app, calls)).body;
    expect(openai.messages.map((m: any) => [m.role, m.tool_call_id])).toEqual([
      ['tool', 'ok'],
      ['tool', 'bad'],
    ]);
  });
});
