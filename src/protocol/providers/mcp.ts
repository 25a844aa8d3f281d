import type { ContentBlock, TextPart } from '../content.js';
import type { JsonObject } from '../json.js';
import type { Dialect, ToolSchemaSource } from './dialect.js';
import { blockText } from './native-content.js';

interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean };
}

/** MCP `tools`: a concurrency-safe tool is a read-only one (`readOnlyHint`); an upstream's `outputSchema` as given. */
export function toMcp(tools: readonly ToolSchemaSource[]): McpTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: structuredClone(tool.parameters),
    ...(tool.outputSchema && { outputSchema: structuredClone(tool.outputSchema) }),
    annotations: { readOnlyHint: tool.concurrencySafe, destructiveHint: !tool.concurrencySafe },
  }));
}

/** One block other than a text part as MCP gives it (server/tools, "Tool Result"), its `annotations` kept; one moved away as a text line. */
function mcpBlock(block: Exclude<ContentBlock, TextPart>): Record<string, unknown> {
  const annotations = block.annotations ? { annotations: block.annotations } : {};
  const mimeType = block.mime_type === null ? {} : { mimeType: block.mime_type };
  if (block.type === 'resource_link') {
    const { type: _type, mime_type: _mime, annotations: _annotations, ...link } = block;
    return { type: 'resource_link', ...link, ...mimeType, ...annotations };
  }
  if ('data' in block && block.type !== 'resource')
    return { type: block.type, data: block.data, mimeType: block.mime_type, ...annotations };
  if (block.type === 'resource' && 'data' in block && block.data !== undefined)
    return { type: 'resource', resource: { uri: block.uri, ...mimeType, blob: block.data }, ...annotations };
  if (block.type === 'resource' && 'text' in block && block.text !== undefined)
    return { type: 'resource', resource: { uri: block.uri, ...mimeType, text: block.text }, ...annotations };
  return { type: 'text', text: blockText(block) };
}

/**
 * MCP content blocks: with `texts` (the result's text split into its parts, see textPartsOf) every block in order, a text part as a text
 * block with its annotations; without, the blocks other than text parts, in order.
 */
export function mcpBlocks(content: readonly ContentBlock[], texts?: readonly string[]): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  let part = 0;
  for (const block of content) {
    if (block.type !== 'text') blocks.push(mcpBlock(block));
    else if (texts) blocks.push({ type: 'text', text: texts[part++], ...(block.annotations && { annotations: block.annotations }) });
  }
  return blocks;
}

/** MCP: calls and their results travel as JSON-RPC (protocol/mcp.ts), not in a POST /execute body. */
export const mcp = {
  tools: (tools) => toMcp(tools) as unknown as Record<string, unknown>[],
} satisfies Dialect;
