import { describe, expect, it } from 'vitest';
import { renderMessages } from '../../../../src/protocol/providers/index.js';
import { shot } from './fixtures.js';

describe('renderMessages: images travel natively beside the payload that names them', () => {
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
});
