import { describe, expect, it } from 'vitest';
import { anthropicCall, geminiPart, openaiCall, parse, responsesCall } from './fixtures.js';

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
