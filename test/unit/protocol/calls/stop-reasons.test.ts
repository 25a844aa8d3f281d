import { describe, expect, it } from 'vitest';
import { anthropicCall, errorOf, geminiPart, openaiCall, parse, responsesCall } from './fixtures.js';

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
