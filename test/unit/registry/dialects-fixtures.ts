import { toGemini, toOpenAI, type ToolSchemaSource } from '../../../src/registry/dialects/index.js';
import type { JsonSchema } from '../../../src/tools/tool.js';

/** A sample tool and schema, and what the Gemini and OpenAI strict converters make of a schema, for the dialects-*.test.ts files. */

export type Node = Record<string, unknown>;

export function tool(parameters: JsonSchema, overrides: Partial<ToolSchemaSource> = {}): ToolSchemaSource {
  return { name: 'Read', description: 'Read a file.', parameters, concurrencySafe: true, ...overrides };
}

/** Every schema node of a converted schema: the root, property schemas, items, anyOf branches, definitions. */
export function schemaNodes(schema: unknown): Node[] {
  const nodes: Node[] = [];
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
    const n = node as Node;
    nodes.push(n);
    for (const key of ['properties', '$defs', 'definitions']) {
      const map = n[key];
      if (typeof map === 'object' && map !== null) Object.values(map).forEach(visit);
    }
    visit(n.items);
    if (Array.isArray(n.anyOf)) n.anyOf.forEach(visit);
  };
  visit(schema);
  return nodes;
}

export function geminiParameters(parameters: JsonSchema): Node | undefined {
  return toGemini([tool(parameters)])[0]?.functionDeclarations[0]?.parameters;
}

export function strict(parameters: JsonSchema): { parameters: Node; strict?: true } {
  const [entry] = toOpenAI([tool(parameters)], { strict: true });
  return entry?.function as { parameters: Node; strict?: true };
}

export const readSchema: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Workspace-relative path.' },
    offset: { type: 'integer', minimum: 1 },
    limit: { type: 'integer', minimum: 1, default: 2000 },
  },
  required: ['path'],
  additionalProperties: false,
};
