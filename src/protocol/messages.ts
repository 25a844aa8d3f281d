import type { CallFormat } from './calls/index.js';

/** One finished call, as the `messages` of the response need it: one per call, in request order. */
export interface ToolResultInput {
  tool_call_id: string;
  name: string;
  /** The serialized result payload (status, text, data, error, truncated). */
  content: string;
  is_error: boolean;
  /** The same payload as an object: Gemini's `functionResponse.response` must be a JSON object, not a string. */
  payload: Record<string, unknown>;
  /**
   * The gateway made the id up because the model sent none. Gemini then gets
   * no `id`: there is no call id on the model's side for it to match.
   */
  id_generated?: boolean;
}

/** OpenAI Chat Completions: one message per call. */
export interface OpenAIToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

/** OpenAI Responses: one `input` item per call; the Responses API takes no `role: "tool"` message. */
export interface ResponsesFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  output: string;
}

/** Anthropic Messages: one user turn holding every result. */
export interface AnthropicToolResultMessage {
  role: 'user';
  content: { type: 'tool_result'; tool_use_id: string; content: string; is_error: boolean }[];
}

/** Gemini: one user turn holding every function response. */
export interface GeminiFunctionResponseMessage {
  role: 'user';
  parts: { functionResponse: { id?: string; name: string; response: Record<string, unknown> } }[];
}

export type ProviderMessage = OpenAIToolMessage | ResponsesFunctionCallOutput | AnthropicToolResultMessage | GeminiFunctionResponseMessage;

/**
 * Render the response's `messages` in request order. A batch without calls
 * renders no message in any format: Anthropic and Gemini reject an empty turn.
 */
export function renderMessages(format: CallFormat, results: readonly ToolResultInput[]): ProviderMessage[] {
  if (format === 'openai') {
    return results.map((r) => ({ role: 'tool', tool_call_id: r.tool_call_id, content: r.content }));
  }
  if (format === 'responses') {
    return results.map((r) => ({ type: 'function_call_output', call_id: r.tool_call_id, output: r.content }));
  }
  if (results.length === 0) return [];
  if (format === 'anthropic') {
    return [
      {
        role: 'user',
        content: results.map((r) => ({ type: 'tool_result', tool_use_id: r.tool_call_id, content: r.content, is_error: r.is_error })),
      },
    ];
  }
  return [
    {
      role: 'user',
      parts: results.map((r) => ({
        functionResponse: r.id_generated
          ? { name: r.name, response: r.payload }
          : { id: r.tool_call_id, name: r.name, response: r.payload },
      })),
    },
  ];
}
