import type { CallFormat } from './calls/index.js';
import type { ContentBlock } from './content.js';
import { anthropicContent, chatImageMessage, geminiParts, responsesOutput } from './native-content.js';

/** One finished call, as the `messages` of the response need it: one per call, in request order. */
export interface ToolResultInput {
  tool_call_id: string;
  name: string;
  /** The serialized result payload (status, text, data, error, truncated). */
  content: string;
  is_error: boolean;
  /** The same payload as an object: Gemini's `functionResponse.response` must be a JSON object, not a string. */
  payload: Record<string, unknown>;
  /** The result's blocks: its images travel natively beside the payload, which names them. */
  blocks?: readonly ContentBlock[];
  /**
   * The gateway made the id up because the model sent none. Gemini then gets
   * no `id`: there is no call id on the model's side for it to match.
   */
  id_generated?: boolean;
}

/** OpenAI Chat Completions: one message per call. */
interface OpenAIToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

/** OpenAI Chat: the images of the calls, in one user message after the tool messages (a tool message holds text only). */
interface OpenAIImageMessage {
  role: 'user';
  content: Record<string, unknown>[];
}

/**
 * OpenAI Responses: one `input` item per call; the Responses API takes no `role: "tool"` message. With images, `output` is a list of
 * `input_text` and `input_image` items.
 */
interface ResponsesFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  output: string | Record<string, unknown>[];
}

/** Anthropic Messages: one user turn holding every result; with images, a result's `content` is a list of text and image blocks. */
interface AnthropicToolResultMessage {
  role: 'user';
  content: { type: 'tool_result'; tool_use_id: string; content: string | Record<string, unknown>[]; is_error: boolean }[];
}

/** Gemini: one user turn holding every function response; images as inline-data `parts` of the response. */
interface GeminiFunctionResponseMessage {
  role: 'user';
  parts: { functionResponse: { id?: string; name: string; response: Record<string, unknown>; parts?: Record<string, unknown>[] } }[];
}

export type ProviderMessage =
  OpenAIToolMessage | OpenAIImageMessage | ResponsesFunctionCallOutput | AnthropicToolResultMessage | GeminiFunctionResponseMessage;

/**
 * Render the response's `messages` in request order. A batch without calls
 * renders no message in any format: Anthropic and Gemini reject an empty turn.
 * A result's images travel natively beside its payload (native-content.ts).
 */
export function renderMessages(format: CallFormat, results: readonly ToolResultInput[]): ProviderMessage[] {
  if (format === 'openai') {
    const messages: ProviderMessage[] = results.map((r) => ({ role: 'tool', tool_call_id: r.tool_call_id, content: r.content }));
    const images = chatImageMessage(results.map((r) => ({ tool_call_id: r.tool_call_id, name: r.name, content: r.blocks })));
    if (images) messages.push(images);
    return messages;
  }
  if (format === 'responses') {
    return results.map((r) => ({ type: 'function_call_output', call_id: r.tool_call_id, output: responsesOutput(r.content, r.blocks) }));
  }
  if (results.length === 0) return [];
  if (format === 'anthropic') {
    return [
      {
        role: 'user',
        content: results.map((r) => ({
          type: 'tool_result',
          tool_use_id: r.tool_call_id,
          content: anthropicContent(r.content, r.blocks),
          is_error: r.is_error,
        })),
      },
    ];
  }
  return [
    {
      role: 'user',
      parts: results.map((r) => {
        const response: GeminiFunctionResponseMessage['parts'][number]['functionResponse'] = r.id_generated
          ? { name: r.name, response: r.payload }
          : { id: r.tool_call_id, name: r.name, response: r.payload };
        const parts = geminiParts(r.blocks);
        if (parts) response.parts = parts;
        return { functionResponse: response };
      }),
    },
  ];
}
