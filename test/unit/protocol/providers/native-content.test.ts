import { describe, expect, it } from 'vitest';
import { renderMessages } from '../../../../src/protocol/providers/index.js';
import { audio, bmp, moved, result } from './fixtures.js';

describe('renderMessages: images travel natively beside the payload that names them', () => {
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
