import { describe, expect, it } from 'vitest';
import { renderMessages, type ToolResultInput } from '../../../src/protocol/messages.js';

function result(id: string, name: string, payload: Record<string, unknown>, extra: Partial<ToolResultInput> = {}): ToolResultInput {
  return { tool_call_id: id, name, content: JSON.stringify(payload), is_error: payload.status === 'error', payload, ...extra };
}

const ok = result('call_1', 'Read', { status: 'success', text: '1\thello', data: { file_size_bytes: 5 }, truncated: null });
const failed = result('call_2', 'Edit', {
  status: 'error',
  text: '',
  error: { code: 'CONFLICT', message: 'The file changed since it was read.', retryable: false },
  truncated: null,
});
const generated = result('call_0123456789abcdef0123456789abcdef', 'LS', { status: 'success', text: 'a\nb', truncated: null }, { id_generated: true });

describe('renderMessages: the messages each format expects, in request order', () => {
  it('openai: one tool message per call, in request order', () => {
    expect(renderMessages('openai', [ok, failed])).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: ok.content },
      { role: 'tool', tool_call_id: 'call_2', content: failed.content },
    ]);
  });

  it('responses: one function_call_output item per call, in request order, output the serialized payload', () => {
    expect(renderMessages('responses', [failed, ok])).toEqual([
      { type: 'function_call_output', call_id: 'call_2', output: failed.content },
      { type: 'function_call_output', call_id: 'call_1', output: ok.content },
    ]);
  });

  it('anthropic: one user message of tool_result blocks, in request order, with is_error', () => {
    expect(renderMessages('anthropic', [failed, ok])).toEqual([
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_2', content: failed.content, is_error: true },
          { type: 'tool_result', tool_use_id: 'call_1', content: ok.content, is_error: false },
        ],
      },
    ]);
  });

  it('gemini: one user message of functionResponse parts whose response is the payload object', () => {
    const [message] = renderMessages('gemini', [ok, failed]);
    expect(message).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'call_1', name: 'Read', response: ok.payload } },
        { functionResponse: { id: 'call_2', name: 'Edit', response: failed.payload } },
      ],
    });
    expect(JSON.parse(JSON.stringify(message))).toEqual(message);
  });

  it('gemini: no id for a call whose id the gateway made up', () => {
    expect(renderMessages('gemini', [generated])).toEqual([
      { role: 'user', parts: [{ functionResponse: { name: 'LS', response: generated.payload } }] },
    ]);
  });

  it('openai and anthropic keep the generated id: the client echoes it back with the call', () => {
    expect(renderMessages('openai', [generated])).toEqual([{ role: 'tool', tool_call_id: generated.tool_call_id, content: generated.content }]);
    expect(renderMessages('anthropic', [generated])[0]).toMatchObject({ content: [{ tool_use_id: generated.tool_call_id }] });
  });

  it.each(['openai', 'responses', 'anthropic', 'gemini'] as const)('%s: no calls, no messages', (format) => {
    expect(renderMessages(format, [])).toEqual([]);
  });

  it('renders only the content given, never the gateway’s own fields', () => {
    const [message] = renderMessages('openai', [ok]);
    expect(Object.keys(message ?? {})).toEqual(['role', 'tool_call_id', 'content']);
  });
});
