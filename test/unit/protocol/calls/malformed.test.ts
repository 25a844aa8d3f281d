import { describe, expect, it } from 'vitest';
import { anthropicCall, errorOf, openaiCall, parse } from './fixtures.js';

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
