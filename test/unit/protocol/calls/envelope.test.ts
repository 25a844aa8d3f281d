import { describe, expect, it } from 'vitest';
import { anthropicCall, errorOf, geminiPart, openaiCall, parse, responsesCall } from './fixtures.js';

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
