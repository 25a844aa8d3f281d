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
const generated = result(
  'call_0123456789abcdef0123456789abcdef',
  'LS',
  { status: 'success', text: 'a\nb', truncated: null },
  { id_generated: true },
);

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
    expect(renderMessages('openai', [generated])).toEqual([
      { role: 'tool', tool_call_id: generated.tool_call_id, content: generated.content },
    ]);
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

describe('renderMessages: images travel natively beside the payload that names them', () => {
  const png = { type: 'image', mime_type: 'image/png', data: 'iVBORw0KGgo=' } as const;
  const gif = { type: 'image', mime_type: 'image/gif', data: 'R0lGODlh' } as const;
  const bmp = { type: 'image', mime_type: 'image/bmp', data: 'Qk0=' } as const;
  const audio = { type: 'audio', mime_type: 'audio/wav', data: 'UklGRg==' } as const;
  const moved = {
    type: 'image',
    mime_type: 'image/png',
    bytes: 9,
    sha256: 'ab',
    url: '/outputs/x',
    note: 'over the output budget: GET /outputs/x for it',
  } as const;
  const shot = result('call_s', 'shot', { status: 'success', text: 'here', truncated: null }, { blocks: [png, gif, bmp, audio, moved] });

  it('openai: tool messages as before, then one user message with a named image_url part per image providers take', () => {
    expect(renderMessages('openai', [ok, shot])).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: ok.content },
      { role: 'tool', tool_call_id: 'call_s', content: shot.content },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'An image/png image from the shot call call_s:' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'text', text: 'An image/gif image from the shot call call_s:' },
          { type: 'image_url', image_url: { url: 'data:image/gif;base64,R0lGODlh' } },
        ],
      },
    ]);
  });

  it('responses: input_text with the payload, then input_image items', () => {
    expect(renderMessages('responses', [shot])[0]).toEqual({
      type: 'function_call_output',
      call_id: 'call_s',
      output: [
        { type: 'input_text', text: shot.content },
        { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
        { type: 'input_image', image_url: 'data:image/gif;base64,R0lGODlh', detail: 'auto' },
      ],
    });
  });

  it('anthropic: a text block with the payload, then base64 image blocks', () => {
    expect(renderMessages('anthropic', [shot])[0]).toMatchObject({
      content: [
        {
          content: [
            { type: 'text', text: shot.content },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.data } },
            { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: gif.data } },
          ],
        },
      ],
    });
  });

  it('gemini: inline-data parts of the function response, for the types its function responses take (no GIF)', () => {
    expect(renderMessages('gemini', [shot])[0]).toEqual({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'call_s',
            name: 'shot',
            response: shot.payload,
            parts: [{ inlineData: { mimeType: 'image/png', data: png.data } }],
          },
        },
      ],
    });
  });

  it('audio, images of other types and moved images stay named in the payload only; no images, no change', () => {
    const named = result('call_n', 'n', { status: 'success', text: '', truncated: null }, { blocks: [bmp, audio, moved] });
    expect(renderMessages('openai', [named])).toEqual([{ role: 'tool', tool_call_id: 'call_n', content: named.content }]);
    expect(renderMessages('responses', [named])[0]).toMatchObject({ output: named.content });
    expect(renderMessages('anthropic', [named])[0]).toMatchObject({ content: [{ content: named.content }] });
    expect(renderMessages('gemini', [named])[0]).toEqual({
      role: 'user',
      parts: [{ functionResponse: { id: 'call_n', name: 'n', response: named.payload } }],
    });
  });
});
