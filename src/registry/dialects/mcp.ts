import type { JsonSchema } from '../../tools/tool.js';
import type { ToolSchemaSource } from './source.js';

/** An MCP `tools/list` entry. */
interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
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
