import { describe, expect, it } from 'vitest';
import { renderMessages } from '../../../../src/protocol/providers/index.js';
import { toOpenAI } from '../../../../src/protocol/providers/openai.js';
import { ok, readSchema, shot, tools } from './fixtures.js';

describe('dialects: the four formats, each as its provider expects', () => {
  it('openai: function entries, schema unchanged, no strict flag', () => {
    expect(toOpenAI(tools, { strict: false })).toEqual([
      { type: 'function', function: { name: 'Read', description: 'Read a file.', parameters: readSchema } },
      { type: 'function', function: { name: 'Bash', description: 'Read a file.', parameters: tools[1]?.parameters } },
    ]);
  });
});

describe('renderMessages: images travel natively beside the payload that names them', () => {
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
});
