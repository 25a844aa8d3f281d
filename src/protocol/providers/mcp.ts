import type { ContentBlock } from '../content.js';
import type { JsonObject } from '../json.js';
import type { Dialect, ToolSchemaSource } from './dialect.js';
import { blockText } from './native-content.js';

interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonObject;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean };
}

/** MCP `tools`: a concurrency-safe tool is a read-only one (`readOnlyHint`). */
export function toMcp(tools: readonly ToolSchemaSource[]): McpTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: structuredClone(tool.parameters),
    annotations: { readOnlyHint: tool.concurrencySafe, destructiveHint: !tool.concurrencySafe },
  }));
}

/** MCP content blocks (server/tools, "Tool Result"): images, audio and resources as MCP gives them. */
export function mcpBlocks(content: readonly ContentBlock[]): Record<string, unknown>[] {
  return content.map((block) => {
    const mimeType = block.mime_type === null ? {} : { mimeType: block.mime_type };
    if (block.type === 'resource_link') return { type: 'resource_link', uri: block.uri, name: block.name, ...mimeType };
    if ('data' in block && block.type !== 'resource') return { type: block.type, data: block.data, mimeType: block.mime_type };
    if (block.type === 'resource' && 'data' in block && block.data !== undefined)
      return { type: 'resource', resource: { uri: block.uri, ...mimeType, blob: block.data } };
    if (block.type === 'resource' && 'text' in block && block.text !== undefined)
      return { type: 'resource', resource: { uri: block.uri, ...mimeType, text: block.text } };
    return { type: 'text', text: blockText(block) };
  });
}

/** MCP: calls and their results travel as JSON-RPC (protocol/mcp.ts), not in a POST /execute body. */
export const mcp = {
  tools: (tools) => toMcp(tools) as unknown as Record<string, unknown>[],
} satisfies Dialect;
