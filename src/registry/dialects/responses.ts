import type { JsonSchema } from '../../tools/tool.js';
import { toOpenAI } from './openai.js';
import type { ToolSchemaSource } from './source.js';

/** An OpenAI Responses `tools` entry: the Chat Completions one without the `function` wrapper. */
interface ResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

/**
 * OpenAI Responses `tools`, strict as `toOpenAI` decides. `strict` is always
 * set: the Responses API treats a function without it as strict, which would
 * reject every schema that is not in strict form.
 */
export function toResponses(tools: readonly ToolSchemaSource[], options: { strict: boolean }): ResponsesTool[] {
  return toOpenAI(tools, options).map(({ function: { name, description, parameters, strict } }) => ({
    type: 'function',
    name,
    description,
    parameters,
    strict: strict === true,
  }));
}
