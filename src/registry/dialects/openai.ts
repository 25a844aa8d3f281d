import type { JsonSchema } from '../../tools/tool.js';
import { toStrictParameters } from './openai-strict.js';
import type { ToolSchemaSource } from './source.js';

/** A Chat Completions `tools` entry. */
interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema; strict?: true };
}

/**
 * OpenAI `tools`. With `strict`, each tool whose schema has a strict-mode form
 * gets it and `"strict": true`; a tool whose schema has none (an open map
 * such as `additionalProperties: {...}`, a free-form object or array, a
 * tuple, an untyped schema) is emitted as is, without `strict`, rather than
 * with a schema that would no longer accept its real arguments.
 */
export function toOpenAI(tools: readonly ToolSchemaSource[], options: { strict: boolean }): OpenAITool[] {
  return tools.map((tool) => {
    const parameters = structuredClone(tool.parameters);
    const strict = options.strict ? toStrictParameters(parameters) : undefined;
    return {
      type: 'function',
      function: strict
        ? { name: tool.name, description: tool.description, parameters: strict, strict: true }
        : { name: tool.name, description: tool.description, parameters },
    };
  });
}
