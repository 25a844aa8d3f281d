import { describe, expect, it } from 'vitest';
import { isModelName, modelOfBody } from '../../../../src/protocol/calls/model.js';

describe('the model a body names: only a whole provider response names one, and only a plausible model name counts', () => {
  it('takes what providers name their models, up to 128 characters, no spaces or control characters', () => {
    for (const name of ['gpt-4o-2024-08-06', 'claude-sonnet-4-5', 'gemini-2.5-flash', 'meta-llama/Llama-3.1-8B', 'anthropic.claude-v2:1']) {
      expect(isModelName(name)).toBe(true);
    }
    for (const name of ['', ' gpt', 'gpt 4', 'a\nb', '-leading', 'x'.repeat(129), 42, null]) expect(isModelName(name)).toBe(false);
    expect(isModelName('x'.repeat(128))).toBe(true);
  });

  it('reads `model` of a chat completion, a Responses object and an Anthropic message, `modelVersion` of a Gemini response', () => {
    expect(modelOfBody({ model: 'gpt-4o', choices: [] })).toBe('gpt-4o');
    expect(modelOfBody({ model: 'gpt-5', output: [] })).toBe('gpt-5');
    expect(modelOfBody({ type: 'message', model: 'claude-sonnet-4-5', content: [] })).toBe('claude-sonnet-4-5');
    expect(modelOfBody({ candidates: [], modelVersion: 'gemini-2.5-flash', model: 'ignored' })).toBe('gemini-2.5-flash');
  });

  it('names none for other bodies and for a value that is not a model name', () => {
    expect(modelOfBody([{ model: 'gpt-4o' }])).toBeUndefined();
    expect(modelOfBody({ role: 'assistant', model: 'gpt-4o', tool_calls: [] })).toBeUndefined();
    expect(modelOfBody({ tool_calls: [], model: 'gpt-4o' })).toBeUndefined();
    expect(modelOfBody({ choices: [], model: 'not a model' })).toBeUndefined();
  });
});
