import { describe, expect, it } from 'vitest';
import { toAnthropic } from '../../../../src/protocol/providers/anthropic.js';
import { renderMessages } from '../../../../src/protocol/providers/index.js';
import { failed, gif, ok, png, readSchema, shot, tool, tools } from './fixtures.js';

describe('dialects: the four formats, each as its provider expects', () => {
  it('anthropic: name, description, input_schema', () => {
    expect(toAnthropic(tools)[0]).toEqual({ name: 'Read', description: 'Read a file.', input_schema: readSchema });
  });

  it('keeps the input order', () => {
    const names = ['b', 'a', 'c'].map((name) => tool(readSchema, { name }));
    expect(toAnthropic(names).map((t) => t.name)).toEqual(['b', 'a', 'c']);
  });
});

describe('renderMessages: the messages each format expects, in request order', () => {
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
});

describe('renderMessages: images travel natively beside the payload that names them', () => {
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
});
