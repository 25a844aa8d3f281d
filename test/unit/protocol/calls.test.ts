import { describe, expect, it } from 'vitest';
import { parseEnvelope, type ParsedEnvelope } from '../../../src/protocol/calls/index.js';
import { GatewayError } from '../../../src/protocol/errors.js';

const options = { maxCalls: 64 };

function parse(body: unknown, overrides: Partial<Parameters<typeof parseEnvelope>[1]> = {}): ParsedEnvelope {
  return parseEnvelope(body, { ...options, ...overrides });
}

function errorOf(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

const openaiCall = { id: 'call_a', type: 'function', function: { name: 'Read', arguments: '{"path":"a.txt"}' } };
const anthropicCall = { type: 'tool_use', id: 'toolu_a', name: 'Read', input: { path: 'a.txt' } };
const geminiPart = { functionCall: { id: 'g_a', name: 'Read', args: { path: 'a.txt' } } };
const responsesCall = {
  type: 'function_call',
  id: 'fc_1',
  call_id: 'call_r',
  name: 'Read',
  arguments: '{"path":"a.txt"}',
  status: 'completed',
};

describe('parseEnvelope: the bodies it accepts', () => {
  const cases: { name: string; body: unknown; ids: string[]; format: string; finishReason?: string }[] = [
    { name: 'a bare array of calls', body: [openaiCall], ids: ['call_a'], format: 'openai' },
    { name: 'an envelope with tool_calls', body: { tool_calls: [openaiCall], session_id: 's1' }, ids: ['call_a'], format: 'openai' },
    { name: 'an envelope with tool_calls: null', body: { tool_calls: null }, ids: [], format: 'openai' },
    {
      name: 'an OpenAI assistant message',
      body: { role: 'assistant', content: null, tool_calls: [openaiCall], refusal: null },
      ids: ['call_a'],
      format: 'openai',
    },
    {
      name: 'an OpenAI assistant message with tool_calls: null',
      body: { role: 'assistant', content: 'hi', tool_calls: null },
      ids: [],
      format: 'openai',
    },
    { name: 'an OpenAI assistant message with no tool_calls', body: { role: 'assistant', content: 'Done.' }, ids: [], format: 'openai' },
    {
      name: 'an OpenAI choice',
      body: { index: 0, message: { role: 'assistant', content: null, tool_calls: [openaiCall] }, finish_reason: 'tool_calls' },
      ids: ['call_a'],
      format: 'openai',
      finishReason: 'tool_calls',
    },
    {
      name: 'an OpenAI chat completion with one choice',
      body: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [openaiCall] }, finish_reason: 'tool_calls' }],
      },
      ids: ['call_a'],
      format: 'openai',
      finishReason: 'tool_calls',
    },
    {
      name: 'an Anthropic assistant message (text blocks skipped)',
      body: { role: 'assistant', content: [{ type: 'text', text: 'Reading.' }, anthropicCall, { type: 'thinking', thinking: '…' }] },
      ids: ['toolu_a'],
      format: 'anthropic',
    },
    {
      name: 'an Anthropic assistant message with string content',
      body: { role: 'assistant', content: 'No tools needed.' },
      ids: [],
      format: 'openai',
    },
    {
      name: 'an Anthropic response object',
      body: { id: 'msg_1', type: 'message', role: 'assistant', content: [anthropicCall], stop_reason: 'tool_use', stop_sequence: null },
      ids: ['toolu_a'],
      format: 'anthropic',
      finishReason: 'tool_use',
    },
    {
      name: 'an Anthropic response with text only',
      body: { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Hi' }], stop_reason: 'end_turn' },
      ids: [],
      format: 'anthropic',
      finishReason: 'end_turn',
    },
    {
      name: 'a bare Responses output array (other items skipped)',
      body: [{ type: 'reasoning', id: 'rs_1', summary: [] }, { type: 'message', role: 'assistant', content: [] }, responsesCall],
      ids: ['call_r'],
      format: 'responses',
    },
    {
      name: 'a Responses object',
      body: { id: 'resp_1', object: 'response', status: 'completed', incomplete_details: null, output: [responsesCall] },
      ids: ['call_r'],
      format: 'responses',
    },
    {
      name: 'a Responses object that answered in text (no calls)',
      body: { object: 'response', status: 'completed', output: [{ type: 'message', role: 'assistant', content: [] }] },
      ids: [],
      format: 'responses',
    },
    {
      name: 'a Gemini content',
      body: { role: 'model', parts: [{ text: 'Let me look.' }, geminiPart, { thoughtSignature: 'abc' }] },
      ids: ['g_a'],
      format: 'gemini',
    },
    { name: 'a Gemini content without calls', body: { role: 'model', parts: [{ text: 'Hello' }] }, ids: [], format: 'gemini' },
    {
      name: 'a Gemini candidate',
      body: { content: { role: 'model', parts: [geminiPart] }, finishReason: 'STOP', index: 0 },
      ids: ['g_a'],
      format: 'gemini',
      finishReason: 'STOP',
    },
    {
      name: 'a Gemini response with one candidate',
      body: { candidates: [{ content: { role: 'model', parts: [geminiPart] }, finishReason: 'STOP' }], usageMetadata: {} },
      ids: ['g_a'],
      format: 'gemini',
      finishReason: 'STOP',
    },
  ];

  it.each(cases)('accepts $name', ({ body, ids, format, finishReason }) => {
    const parsed = parse(body);
    expect(parsed.calls.map((call) => call.id)).toEqual(ids);
    expect(parsed.format).toBe(format);
    expect(parsed.finishReason).toBe(finishReason);
  });

  it('numbers calls 0..n-1 in request order, skipped blocks not counted', () => {
    const parsed = parse({
      role: 'assistant',
      content: [
        { type: 'text', text: 'a' },
        { ...anthropicCall, id: 't1' },
        { type: 'text', text: 'b' },
        { ...anthropicCall, id: 't2' },
      ],
    });
    expect(parsed.calls.map((call) => [call.index, call.id])).toEqual([
      [0, 't1'],
      [1, 't2'],
    ]);
  });
});

describe('parseEnvelope: call shapes', () => {
  const shapes = [
    { shape: 'openai', call: openaiCall, id: 'call_a', args: '{"path":"a.txt"}' },
    { shape: 'openai', call: { id: 'call_b', function: { name: 'Read', arguments: '{}' } }, id: 'call_b', args: '{}' },
    { shape: 'flat', call: { id: 'call_f', name: 'Read', arguments: { path: 'a.txt' } }, id: 'call_f', args: { path: 'a.txt' } },
    { shape: 'anthropic', call: anthropicCall, id: 'toolu_a', args: { path: 'a.txt' } },
    { shape: 'gemini', call: geminiPart, id: 'g_a', args: { path: 'a.txt' } },
    { shape: 'responses', call: responsesCall, id: 'call_r', args: '{"path":"a.txt"}' },
  ] as const;

  it.each(shapes)('reads the $shape shape ($id)', ({ shape, call, id, args }) => {
    const [parsed] = parse({ tool_calls: [call] }).calls;
    expect(parsed).toEqual({ index: 0, id, idGenerated: false, name: 'Read', rawArguments: args, shape });
  });

  it('accepts every shape mixed in one batch', () => {
    const parsed = parse(shapes.map((s) => s.call));
    expect(parsed.calls.map((call) => call.shape)).toEqual(shapes.map((s) => s.shape));
  });

  it('keeps string arguments as the string, unparsed — even when it is not JSON', () => {
    const call = { id: 'x', name: 'Read', arguments: '{"path": "a.txt"' };
    expect(parse([call]).calls[0]?.rawArguments).toBe('{"path": "a.txt"');
  });

  it('keeps object arguments as the very object given', () => {
    const args = { path: 'a.txt', nested: { deep: [1, 2] } };
    expect(parse([{ id: 'x', name: 'Read', arguments: args }]).calls[0]?.rawArguments).toBe(args);
  });

  it('leaves arguments of any other kind for the parse gate to reject', () => {
    const calls = parse([
      { id: 'a', name: 'Read', arguments: null },
      { id: 'b', name: 'Read', arguments: 42 },
      { id: 'c', name: 'Read', arguments: [1] },
      { id: 'd', name: 'Read' },
    ]).calls;
    expect(calls.map((call) => call.rawArguments)).toEqual([null, 42, [1], undefined]);
  });

  it('gives undefined arguments for a Gemini call without args', () => {
    const [call] = parse({ role: 'model', parts: [{ functionCall: { name: 'LS' } }] }).calls;
    expect(call).toMatchObject({ name: 'LS', shape: 'gemini' });
    expect(call?.rawArguments).toBeUndefined();
  });

  it('uses call_id, not the item id, for Responses calls', () => {
    expect(parse([responsesCall]).calls[0]?.id).toBe('call_r');
  });
});

describe('parseEnvelope: call ids', () => {
  it('generates call_<32 hex> ids for calls without one, all distinct', () => {
    const calls = parse(Array.from({ length: 64 }, () => ({ name: 'Read', arguments: '{}' }))).calls;
    for (const call of calls) {
      expect(call.id).toMatch(/^call_[0-9a-f]{32}$/);
      expect(call.idGenerated).toBe(true);
    }
    expect(new Set(calls.map((call) => call.id)).size).toBe(64);
  });

  it('generates an id for null and empty ids, and for Gemini calls without id', () => {
    const calls = parse([
      { id: null, name: 'Read', arguments: '{}' },
      { id: '', name: 'Read', arguments: '{}' },
      { functionCall: { name: 'Read', args: {} } },
    ]).calls;
    expect(calls.every((call) => call.idGenerated)).toBe(true);
  });

  it('uses the injected generator', () => {
    let n = 0;
    const calls = parse([{ name: 'A' }, { name: 'B' }], { generateId: () => `gen_${++n}` }).calls;
    expect(calls.map((call) => call.id)).toEqual(['gen_1', 'gen_2']);
  });

  it('rejects two calls with the same id: DUPLICATE_CALL_ID with the id', () => {
    const error = errorOf(() => parse([openaiCall, { ...anthropicCall, id: 'call_a' }]));
    expect(error.code).toBe('DUPLICATE_CALL_ID');
    expect(error.status).toBe(400);
    expect(error.details).toEqual({ id: 'call_a' });
  });

  it('rejects an id that is not a string, or over 256 characters', () => {
    expect(errorOf(() => parse([{ id: 7, name: 'Read' }])).details).toEqual({ index: 0, path: '[0].id' });
    expect(errorOf(() => parse([{ id: 'x'.repeat(257), name: 'Read' }])).code).toBe('BAD_REQUEST');
    expect(parse([{ id: 'x'.repeat(256), name: 'Read' }]).calls[0]?.id).toHaveLength(256);
  });
});

describe('parseEnvelope: TOO_MANY_CALLS', () => {
  const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: 'Read', arguments: '{}' }));

  it('accepts exactly maxCalls', () => {
    expect(parse(calls(5), { maxCalls: 5 }).calls).toHaveLength(5);
  });

  it('rejects maxCalls + 1 with max and got', () => {
    const error = errorOf(() => parse(calls(6), { maxCalls: 5 }));
    expect(error.code).toBe('TOO_MANY_CALLS');
    expect(error.details).toEqual({ max: 5, got: 6 });
    expect(error.message).toBe('The batch has 6 calls; at most 5 are allowed.');
  });

  it('says a maximum of one in the singular', () => {
    expect(errorOf(() => parse(calls(2), { maxCalls: 1 })).message).toBe('The batch has 2 calls; at most 1 is allowed.');
  });

  it('counts calls only, not the text blocks between them', () => {
    const content = [...calls(2).map((c) => ({ type: 'tool_use', id: c.id, name: 'Read', input: {} })), { type: 'text', text: 'x' }];
    expect(parse({ role: 'assistant', content }, { maxCalls: 2 }).calls).toHaveLength(2);
  });

  it('accepts an empty list: zero calls', () => {
    expect(parse([], { maxCalls: 0 })).toEqual({ calls: [], format: 'openai' });
  });
});

describe('parseEnvelope: INCOMPLETE_TOOL_CALLS (nothing may run)', () => {
  const cases: { name: string; body: unknown }[] = [
    { name: 'envelope finish_reason length', body: { tool_calls: [openaiCall], finish_reason: 'length' } },
    { name: 'envelope stop_reason max_tokens', body: { tool_calls: [openaiCall], stop_reason: 'max_tokens' } },
    { name: 'envelope finish_reason max_tokens', body: { tool_calls: [openaiCall], finish_reason: 'max_tokens' } },
    {
      name: 'OpenAI choice finish_reason length',
      body: { message: { role: 'assistant', tool_calls: [openaiCall] }, finish_reason: 'length' },
    },
    {
      name: 'OpenAI completion choices[0].finish_reason length',
      body: { choices: [{ message: { role: 'assistant', tool_calls: [openaiCall] }, finish_reason: 'length' }] },
    },
    {
      name: 'Anthropic message stop_reason max_tokens',
      body: { type: 'message', role: 'assistant', content: [anthropicCall], stop_reason: 'max_tokens' },
    },
    {
      name: 'Anthropic message stop_reason model_context_window_exceeded',
      body: { type: 'message', role: 'assistant', content: [anthropicCall], stop_reason: 'model_context_window_exceeded' },
    },
    {
      name: 'Gemini candidate finishReason MAX_TOKENS',
      body: { content: { role: 'model', parts: [geminiPart] }, finishReason: 'MAX_TOKENS' },
    },
    {
      name: 'Gemini response candidates[0].finishReason MAX_TOKENS',
      body: { candidates: [{ content: { role: 'model', parts: [geminiPart] }, finishReason: 'MAX_TOKENS' }] },
    },
    {
      name: 'Responses object status incomplete',
      body: { object: 'response', status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [responsesCall] },
    },
    { name: 'Responses function_call item status incomplete', body: [{ ...responsesCall, status: 'incomplete' }] },
    // The last call is cut off mid-arguments: still 422, never a 400 about the broken call.
    {
      name: 'length with a malformed, truncated call',
      body: { tool_calls: [{ id: 'x', type: 'function', function: {} }], finish_reason: 'length' },
    },
  ];

  it.each(cases)('$name', ({ body }) => {
    const error = errorOf(() => parse(body));
    expect(error.code).toBe('INCOMPLETE_TOOL_CALLS');
    expect(error.status).toBe(422);
  });

  it('says where the stop reason was found', () => {
    const error = errorOf(() => parse({ choices: [{ message: { role: 'assistant', tool_calls: [] }, finish_reason: 'length' }] }));
    expect(error.details).toEqual({ path: 'choices[0].finish_reason', reason: 'length' });
  });

  it.each(['stop', 'tool_calls', 'end_turn', 'tool_use', 'STOP'])('runs on finish reason %s', (reason) => {
    expect(parse({ tool_calls: [openaiCall], finish_reason: reason }).finishReason).toBe(reason);
  });

  it('rejects a finish_reason that is not a string', () => {
    expect(errorOf(() => parse({ tool_calls: [], finish_reason: 3 })).code).toBe('BAD_REQUEST');
  });
});

describe('parseEnvelope: format', () => {
  it.each([
    ['openai', [openaiCall]],
    ['openai', [{ id: 'f', name: 'Read', arguments: '{}' }]],
    ['responses', [responsesCall]],
    ['anthropic', [anthropicCall]],
    ['gemini', [geminiPart]],
  ] as const)('infers %s from the first call', (format, calls) => {
    expect(parse({ tool_calls: calls }).format).toBe(format);
  });

  it('infers from the first call only', () => {
    expect(parse([anthropicCall, openaiCall]).format).toBe('anthropic');
  });

  it('lets an explicit format win', () => {
    expect(parse({ tool_calls: [anthropicCall], format: 'gemini' }).format).toBe('gemini');
    expect(parse({ tool_calls: [], format: 'anthropic' }).format).toBe('anthropic');
    expect(parse({ tool_calls: [openaiCall], format: 'responses' }).format).toBe('responses');
  });

  it.each(['mcp', 'OpenAI', '', 1])('rejects format %j', (format) => {
    const error = errorOf(() => parse({ tool_calls: [], format }));
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toContain('format');
  });
});

describe('parseEnvelope: envelope fields', () => {
  it('reads every field', () => {
    expect(
      parse({
        tool_calls: [],
        session_id: 'sess-1',
        mode: 'async',
        callback_url: 'https://hooks.example.com/done',
        timeout_ms: 1500,
        finish_reason: 'tool_calls',
      }),
    ).toEqual({
      calls: [],
      format: 'openai',
      sessionId: 'sess-1',
      mode: 'async',
      callbackUrl: 'https://hooks.example.com/done',
      timeoutMs: 1500,
      finishReason: 'tool_calls',
    });
  });

  it('treats null fields as absent', () => {
    expect(parse({ tool_calls: [], session_id: null, mode: null, callback_url: null, timeout_ms: null, format: null })).toEqual({
      calls: [],
      format: 'openai',
    });
  });

  it('accepts a 256-character session id', () => {
    expect(parse({ tool_calls: [], session_id: 's'.repeat(256) }).sessionId).toHaveLength(256);
  });

  it.each([
    ['session_id', ''],
    ['session_id', 's'.repeat(257)],
    ['session_id', 12],
    ['mode', 'batch'],
    ['mode', true],
    ['callback_url', 42],
    ['callback_url', 'not a url'],
    ['callback_url', '/relative'],
    ['callback_url', 'ftp://example.com/x'],
    ['timeout_ms', 0],
    ['timeout_ms', -5],
    ['timeout_ms', 1.5],
    ['timeout_ms', '100'],
    ['timeout_ms', 2 ** 53],
  ])('rejects %s = %j with a message naming the field', (field, value) => {
    const error = errorOf(() => parse({ tool_calls: [], [field]: value }));
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toContain(field);
    expect(error.details).toEqual({ field });
  });

  it('reads envelope fields on an assistant message too', () => {
    expect(parse({ role: 'assistant', content: [anthropicCall], session_id: 's' }).sessionId).toBe('s');
  });
});

describe('parseEnvelope: malformed envelopes are BAD_REQUEST', () => {
  const cases: { name: string; body: unknown; path?: string }[] = [
    { name: 'null', body: null },
    { name: 'a number', body: 42 },
    { name: 'a string', body: '[]' },
    { name: 'true', body: true },
    { name: 'an empty object', body: {} },
    { name: 'an unrelated object', body: { hello: 'world' } },
    { name: 'tool_calls not an array', body: { tool_calls: { id: 'a' } }, path: 'tool_calls' },
    { name: 'output not an array', body: { output: 'x' }, path: 'output' },
    { name: 'parts not an array', body: { role: 'model', parts: {} }, path: 'parts' },
    { name: 'a user message', body: { role: 'user', content: 'hi' }, path: 'role' },
    { name: 'a tool message', body: { role: 'tool', tool_call_id: 'x', content: 'hi' }, path: 'role' },
    { name: 'two choices', body: { choices: [{ message: {} }, { message: {} }] }, path: 'choices' },
    { name: 'no choice', body: { choices: [] }, path: 'choices' },
    { name: 'two candidates', body: { candidates: [{}, {}] }, path: 'candidates' },
    { name: 'a number as a call', body: [1], path: '[0]' },
    { name: 'null as a call', body: { tool_calls: [openaiCall, null] }, path: 'tool_calls[1]' },
    { name: 'a string as a call', body: { tool_calls: ['Read'] }, path: 'tool_calls[0]' },
    { name: 'an array as a call', body: [[openaiCall]], path: '[0]' },
    { name: 'an unknown type in tool_calls', body: { tool_calls: [{ type: 'custom', id: 'x', custom: {} }] }, path: 'tool_calls[0].type' },
    { name: 'a non-string type', body: [{ type: 5, name: 'Read' }], path: '[0].type' },
    { name: 'an OpenAI call without function', body: [{ id: 'x', type: 'function' }], path: '[0].function' },
    { name: 'an OpenAI call with function: "Read"', body: [{ id: 'x', type: 'function', function: 'Read' }], path: '[0].function' },
    { name: 'a Gemini functionCall that is not an object', body: [{ functionCall: 'Read' }], path: '[0].functionCall' },
  ];

  it.each(cases)('rejects $name', ({ body, path }) => {
    const error = errorOf(() => parse(body));
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.status).toBe(400);
    if (path !== undefined) expect((error.details as { path: string }).path).toBe(path);
  });

  it.each([
    ['missing', { id: 'a', arguments: '{}' }, '[1].name'],
    ['a number', { id: 'a', name: 3, arguments: '{}' }, '[1].name'],
    ['empty', { id: 'a', name: '', arguments: '{}' }, '[1].name'],
    ['missing in function', { id: 'a', type: 'function', function: { arguments: '{}' } }, '[1].function.name'],
    ['missing in functionCall', { functionCall: { args: {} } }, '[1].functionCall.name'],
    ['missing in tool_use', { type: 'tool_use', id: 'a', input: {} }, '[1].name'],
    ['missing in function_call', { type: 'function_call', call_id: 'a', arguments: '{}' }, '[1].name'],
  ])('rejects a call whose name is %s, saying which index', (_label, call, path) => {
    const error = errorOf(() => parse([{ id: 'ok', name: 'Read', arguments: '{}' }, call]));
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.details).toEqual({ index: 1, path });
    expect(error.message).toContain(path);
  });

  it('skips unknown block types in content lists', () => {
    const body = { role: 'assistant', content: [{ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }, anthropicCall] };
    expect(parse(body).calls.map((call) => call.id)).toEqual(['toolu_a']);
  });

  it('keeps echoed client strings short in messages', () => {
    const error = errorOf(() => parse({ tool_calls: [{ type: 'x'.repeat(10_000) }] }));
    expect(error.message.length).toBeLessThan(300);
  });
});

describe('parseEnvelope: hostile input', () => {
  it('ignores a tool_calls key that only exists under __proto__', () => {
    const body: unknown = JSON.parse('{"__proto__": {"tool_calls": [{"id": "a", "name": "Read"}]}}');
    expect(errorOf(() => parse(body)).code).toBe('BAD_REQUEST');
  });

  it('does not take a name from a call’s __proto__ key', () => {
    const body: unknown = JSON.parse('[{"id": "a", "__proto__": {"name": "Read"}, "arguments": "{}"}]');
    expect(errorOf(() => parse(body)).details).toEqual({ index: 0, path: '[0].name' });
  });

  it('ignores inherited properties', () => {
    const body = Object.create({ tool_calls: [openaiCall] }) as object;
    expect(errorOf(() => parse(body)).code).toBe('BAD_REQUEST');
  });

  it('reads null-prototype objects', () => {
    const call = Object.assign(Object.create(null) as object, { id: 'a', name: 'Read', arguments: '{}' });
    const body = Object.assign(Object.create(null) as object, { tool_calls: [call] });
    expect(parse(body).calls[0]?.name).toBe('Read');
  });

  it('passes __proto__ keys inside arguments through as data, polluting nothing', () => {
    const body: unknown = JSON.parse('[{"id": "a", "name": "Read", "arguments": {"__proto__": {"polluted": true}}}]');
    const args = parse(body).calls[0]?.rawArguments as object;
    expect(Object.hasOwn(args, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('gives a clean BAD_REQUEST for a 10,000-deep array, not a RangeError', () => {
    let deep: unknown = [];
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(errorOf(() => parse(deep)).code).toBe('BAD_REQUEST');
    expect(errorOf(() => parse({ tool_calls: deep })).code).toBe('BAD_REQUEST');
  });

  it('gives a clean BAD_REQUEST for a 10,000-deep object', () => {
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i++) deep = { tool: deep, message: deep };
    expect(errorOf(() => parse(deep)).code).toBe('BAD_REQUEST');
  });

  it('leaves 10,000-deep arguments untouched for the parse gate', () => {
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i++) deep = { a: [deep] };
    expect(parse([{ id: 'a', name: 'Read', arguments: deep }]).calls[0]?.rawArguments).toBe(deep);
  });

  it('does not modify the body', () => {
    const body = {
      tool_calls: [openaiCall, { name: 'Read', arguments: { a: 1 } }, geminiPart],
      session_id: 's',
      finish_reason: 'tool_calls',
    };
    const before = structuredClone(body);
    deepFreeze(body);
    parse(body);
    expect(body).toEqual(before);
  });
});
