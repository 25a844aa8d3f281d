import type { ContentBlock } from '../content.js';
import type { JsonObject } from '../json.js';
import type { Dialect, ToolResultInput, ToolSchemaSource } from './dialect.js';
import { imagesOf } from './native-content.js';

interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonObject;
}

/** Anthropic `tools`: Anthropic takes JSON Schema as it is. */
export function toAnthropic(tools: readonly ToolSchemaSource[]): AnthropicTool[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: structuredClone(tool.parameters) }));
}

/** One user turn holding every result; with images, a result's `content` is a list of text and image blocks. */
interface AnthropicToolResultMessage {
  role: 'user';
  content: { type: 'tool_result'; tool_use_id: string; content: string | Record<string, unknown>[]; is_error: boolean }[];
}

/** `tool_result` content: a text block with the payload, then a base64 `image` block per image; the payload alone without images. */
function anthropicContent(payload: string, content: readonly ContentBlock[] | undefined): string | Record<string, unknown>[] {
  const images = imagesOf(content);
  if (images.length === 0) return payload;
  return [
    { type: 'text', text: payload },
    ...images.map((image) => ({ type: 'image', source: { type: 'base64', media_type: image.mime_type, data: image.data } })),
  ];
}

export const anthropic = {
  tools: (tools) => toAnthropic(tools) as unknown as Record<string, unknown>[],
  // The BM25 variant of its tool search tool (a client that prefers regular expressions swaps in
  // `{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}`).
  searchTool: { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
  calls: {
    // `{"type":"tool_use","id","name","input"}`
    anthropic: { id: 'id', args: 'input' },
  },
  messages(results: readonly ToolResultInput[]): AnthropicToolResultMessage[] {
    // An empty turn is rejected.
    if (results.length === 0) return [];
    const content = results.map((r) => ({
      type: 'tool_result' as const,
      tool_use_id: r.tool_call_id,
      content: anthropicContent(r.content, r.blocks),
      is_error: r.is_error,
    }));
    return [{ role: 'user', content }];
  },
} satisfies Dialect;
