import type { JsonSchema } from '../../tools/tool.js';
import type { ToolSchemaSource } from './source.js';

/** An Anthropic Messages `tools` entry. */
interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

/** Anthropic `tools`: Anthropic takes JSON Schema as it is. */
export function toAnthropic(tools: readonly ToolSchemaSource[]): AnthropicTool[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: structuredClone(tool.parameters) }));
}
