import { describe, expect, it } from 'vitest';
import { anthropicCall, geminiPart, openaiCall, parse, responsesCall } from './fixtures.js';

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
