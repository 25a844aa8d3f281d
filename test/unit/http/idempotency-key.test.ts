import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * An Idempotency-Key is for clients whose model regenerates
 * call ids on retry. It matches on what a retry keeps (session, tool names and
 * arguments in order) and answers with the retry's ids, in the retry's format.
 */
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const KEY = { 'idempotency-key': 'retry-1' };
const write = (id: string, args: unknown) => ({ id, type: 'function', function: { name: 'Write', arguments: args } });

async function firstWrite(app: TestApp) {
  const first = await execute(app.app, { tool_calls: [write('call_first', JSON.stringify({ path: 'a.txt', content: 'one' }))] }, KEY);
  expect(first.body.results[0]).toMatchObject({ tool_call_id: 'call_first', status: 'success', replayed: false });
  // Changed behind the gateway's back: a Write that ran again would put "one" back.
  await writeFile(join(app.workspace, 'a.txt'), 'changed since');
  return first;
}

describe('Idempotency-Key: a retry with new call ids', () => {
  it('gets the stored results under its own ids, and the Write does not run again (arguments as an object, keys reordered)', async () => {
    t = await buildTestApp();
    const first = await firstWrite(t);
    const retry = await execute(t.app, { tool_calls: [write('call_retry', { content: 'one', path: 'a.txt' })] }, KEY);
    expect(retry.status).toBe(200);
    expect(retry.body.results).toEqual([{ ...first.body.results[0], tool_call_id: 'call_retry', replayed: true }]);
    expect(retry.body.messages).toEqual([{ ...first.body.messages[0], tool_call_id: 'call_retry' }]);
    expect(await readFile(join(t.workspace, 'a.txt'), 'utf8')).toBe('changed since');
  });

  it('is answered in its own format with its ids: Anthropic tool_use_id, Gemini functionResponse id, Responses call_id', async () => {
    t = await buildTestApp();
    const first = await firstWrite(t);
    const content = first.body.messages[0].content as string;
    const args = { path: 'a.txt', content: 'one' };

    const anthropic = await execute(
      t.app,
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'Write', input: args }] },
      KEY,
    );
    expect(anthropic.body.results[0]).toMatchObject({ tool_call_id: 'toolu_2', replayed: true });
    expect(anthropic.body.messages).toEqual([
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content, is_error: false }] },
    ]);

    const gemini = await execute(t.app, { role: 'model', parts: [{ functionCall: { id: 'g-3', name: 'Write', args } }] }, KEY);
    expect(gemini.body.messages[0].parts[0].functionResponse).toEqual({ id: 'g-3', name: 'Write', response: JSON.parse(content) });

    const responses = await execute(
      t.app,
      [{ type: 'function_call', call_id: 'fc_4', name: 'Write', arguments: JSON.stringify(args) }],
      KEY,
    );
    expect(responses.body.results[0]).toMatchObject({ tool_call_id: 'fc_4', replayed: true });
    expect(responses.body.messages).toEqual([{ type: 'function_call_output', call_id: 'fc_4', output: content }]);

    expect(await readFile(join(t.workspace, 'a.txt'), 'utf8')).toBe('changed since');
  });

  it('other arguments, another tool, another order or another session: IDEMPOTENCY_MISMATCH, and nothing runs', async () => {
    t = await buildTestApp();
    await firstWrite(t);
    const ls = { id: 'l', type: 'function', function: { name: 'LS', arguments: '{"path":"."}' } };
    const bodies = [
      { tool_calls: [write('c1', { path: 'a.txt', content: 'two' })] },
      { tool_calls: [{ id: 'c2', type: 'function', function: { name: 'Edit', arguments: { path: 'a.txt', content: 'one' } } }] },
      { tool_calls: [write('c3', { path: 'a.txt', content: 'one' }), ls] },
      { tool_calls: [ls, write('c4', { path: 'a.txt', content: 'one' })] },
      { session_id: 'other', tool_calls: [write('c5', { path: 'a.txt', content: 'one' })] },
    ];
    for (const body of bodies) {
      const res = await execute(t.app, body, KEY);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('IDEMPOTENCY_MISMATCH');
    }
    expect(await readFile(join(t.workspace, 'a.txt'), 'utf8')).toBe('changed since');
  });
});
