import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { faultyTool } from '../../helpers/tools.js';

/** Every accepted body and call shape gives the same results, rendered per format. */
describe('POST /execute body and call shapes', () => {
  let t: TestApp;
  const counter = { runs: 0 };
  beforeAll(async () => {
    t = await buildTestApp({ tools: [faultyTool('probe', { counter })] });
  });
  afterAll(() => t.close());

  const args = { mode: 'ok' };
  const bodies: Array<[string, unknown, string]> = [
    [
      'bare array of OpenAI calls',
      [{ id: 'c1', type: 'function', function: { name: 'probe', arguments: JSON.stringify(args) } }],
      'openai',
    ],
    ['tool_calls wrapper with flat calls', { tool_calls: [{ id: 'c1', name: 'probe', arguments: args }] }, 'openai'],
    [
      'OpenAI assistant message',
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'probe', arguments: JSON.stringify(args) } }],
      },
      'openai',
    ],
    [
      'Anthropic assistant message',
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'let me check' },
          { type: 'tool_use', id: 'c1', name: 'probe', input: args },
        ],
      },
      'anthropic',
    ],
    [
      'Responses output array',
      [
        { type: 'reasoning', id: 'r1' },
        { type: 'function_call', call_id: 'c1', name: 'probe', arguments: JSON.stringify(args) },
      ],
      'responses',
    ],
    [
      'Responses object',
      { output: [{ type: 'function_call', call_id: 'c1', name: 'probe', arguments: JSON.stringify(args) }] },
      'responses',
    ],
    [
      'flat calls with format "responses"',
      { format: 'responses', tool_calls: [{ id: 'c1', name: 'probe', arguments: args }] },
      'responses',
    ],
    ['Gemini functionCall', [{ functionCall: { id: 'c1', name: 'probe', args } }], 'gemini'],
  ];

  it.each(bodies)('%s', async (_label, body, format) => {
    const { status, body: res } = await execute(t.app, body);
    expect(status).toBe(200);
    expect(res.results).toHaveLength(1);
    expect(res.results[0]).toMatchObject({
      tool_call_id: 'c1',
      name: 'probe',
      status: 'success',
      text: 'ok',
      replayed: false,
      truncated: null,
    });
    expect(res.results[0]).not.toHaveProperty('error');
    if (format === 'openai') expect(res.messages).toEqual([{ role: 'tool', tool_call_id: 'c1', content: expect.any(String) }]);
    if (format === 'responses') expect(res.messages).toEqual([{ type: 'function_call_output', call_id: 'c1', output: expect.any(String) }]);
    if (format === 'anthropic') {
      expect(res.messages).toEqual([
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: expect.any(String), is_error: false }] },
      ]);
    }
    if (format === 'gemini') {
      expect(res.messages).toEqual([
        {
          role: 'user',
          parts: [{ functionResponse: { id: 'c1', name: 'probe', response: expect.objectContaining({ status: 'success', text: 'ok' }) } }],
        },
      ]);
    }
  });

  it('content is the serialized payload and nothing of the gateway internals', async () => {
    const { body } = await execute(t.app, [{ id: 'c1', name: 'probe', arguments: args }]);
    const content = JSON.parse(body.messages[0].content);
    expect(Object.keys(content).sort()).toEqual(['status', 'text', 'truncated']);
    expect(content).toEqual({ status: 'success', text: 'ok', truncated: null });
  });

  it('an explicit format overrides the inferred one', async () => {
    const { body } = await execute(t.app, { format: 'anthropic', tool_calls: [{ id: 'c1', name: 'probe', arguments: args }] });
    expect(body.messages[0].role).toBe('user');
    expect(body.messages[0].content[0].tool_use_id).toBe('c1');
  });

  it('a missing id is generated and bound to its result', async () => {
    const { body } = await execute(t.app, [
      { name: 'probe', arguments: args },
      { name: 'probe', arguments: args },
    ]);
    const ids = body.results.map((r: { tool_call_id: string }) => r.tool_call_id);
    expect(ids[0]).toMatch(/^call_[A-Za-z0-9]{16,}$/);
    expect(ids[0]).not.toBe(ids[1]);
    expect(body.messages.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(ids);
  });

  it('two calls with one id reject the batch with DUPLICATE_CALL_ID and run nothing', async () => {
    const before = counter.runs;
    const { status, body } = await execute(t.app, [
      { id: 'x', name: 'probe', arguments: args },
      { id: 'x', name: 'probe', arguments: args },
    ]);
    expect(status).toBe(400);
    expect(body.error.code).toBe('DUPLICATE_CALL_ID');
    expect(counter.runs).toBe(before);
  });

  it('more calls than the maximum is TOO_MANY_CALLS; exactly the maximum runs', async () => {
    const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: 'probe', arguments: args }));
    const over = await execute(t.app, calls(65));
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('TOO_MANY_CALLS');
    const at = await execute(t.app, calls(64));
    expect(at.status).toBe(200);
    expect(at.body.results).toHaveLength(64);
  });

  it('an empty list answers 200 with empty results', async () => {
    for (const body of [[], { tool_calls: [] }, { role: 'assistant', content: 'no tools needed' }]) {
      const res = await execute(t.app, body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [], messages: [] });
    }
  });

  it.each([
    ['finish_reason length', { finish_reason: 'length', tool_calls: [{ id: 'c1', name: 'probe', arguments: args }] }],
    [
      'stop_reason max_tokens',
      { role: 'assistant', stop_reason: 'max_tokens', content: [{ type: 'tool_use', id: 'c1', name: 'probe', input: args }] },
    ],
  ])('%s: 422 INCOMPLETE_TOOL_CALLS and nothing runs', async (_label, body) => {
    const before = counter.runs;
    const { status, body: res } = await execute(t.app, body);
    expect(status).toBe(422);
    expect(res.error.code).toBe('INCOMPLETE_TOOL_CALLS');
    expect(counter.runs).toBe(before);
  });

  it('arguments that are not JSON fail that call only with INVALID_JSON', async () => {
    const { body } = await execute(t.app, [
      { id: 'bad', type: 'function', function: { name: 'probe', arguments: '{"mode": "ok"' } },
      { id: 'arr', name: 'probe', arguments: '[1,2]' },
      { id: 'good', name: 'probe', arguments: args },
    ]);
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(['error', 'error', 'success']);
    expect(body.results[0].error).toMatchObject({ code: 'INVALID_JSON', retryable: false });
    expect(body.results[1].error.code).toBe('INVALID_JSON');
  });
});
