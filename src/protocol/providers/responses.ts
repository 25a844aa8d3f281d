import type { ContentBlock } from '../content.js';
import type { JsonObject } from '../json.js';
import type { Dialect, ToolNotes, ToolResultInput, ToolSchemaSource } from './dialect.js';
import { dataUrl, imagesOf } from './native-content.js';
import { OPENAI_MAX_TOOLS, toOpenAI } from './openai.js';

/** An OpenAI Responses `tools` entry: the Chat Completions one without the `function` wrapper. */
interface ResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonObject;
  strict: boolean;
}

/** Strict as `toOpenAI` decides, `strict` always set: Responses treats a function without it as strict. */
function toResponses(tools: readonly ToolSchemaSource[], options: { strict: boolean; notes?: ToolNotes | undefined }): ResponsesTool[] {
  return toOpenAI(tools, options).map(({ function: { name, description, parameters, strict } }) => ({
    type: 'function',
    name,
    description,
    parameters,
    strict: strict === true,
  }));
}

/** One `input` item per call; the Responses API takes no `role: "tool"` message. */
interface ResponsesFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  output: string | Record<string, unknown>[];
}

/** `output`: `input_text` with the payload, then an `input_image` per image; the payload string alone without images. */
function responsesOutput(payload: string, content: readonly ContentBlock[] | undefined): string | Record<string, unknown>[] {
  const images = imagesOf(content);
  if (images.length === 0) return payload;
  return [
    { type: 'input_text', text: payload },
    ...images.map((image) => ({ type: 'input_image', image_url: dataUrl(image), detail: 'auto' })),
  ];
}

export const responses = {
  tools: (tools, strict, notes) => toResponses(tools, { strict, notes }) as unknown as Record<string, unknown>[],
  // The same OpenAI limit on a request's functions.
  maxTools: OPENAI_MAX_TOOLS,
  // The hosted `tool_search`.
  searchTool: { type: 'tool_search' },
  calls: {
    // `{"type":"function_call","call_id","name","arguments"}`
    responses: { id: 'call_id', args: 'arguments' },
  },
  messages: (results: readonly ToolResultInput[]): ResponsesFunctionCallOutput[] =>
    results.map((r) => ({ type: 'function_call_output', call_id: r.tool_call_id, output: responsesOutput(r.content, r.blocks) })),
} satisfies Dialect;
