import type { ToolResultInput, ToolSchemaSource } from '../../../../src/protocol/providers/dialect.js';
import { toGemini } from '../../../../src/protocol/providers/gemini.js';
import { toOpenAI } from '../../../../src/protocol/providers/openai.js';
import type { JsonSchema } from '../../../../src/tools/tool.js';

/** A sample tool and schema, and what the Gemini and OpenAI strict converters make of a schema, for the *.test.ts files. */

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

/** Two tools, one concurrency-safe. */
export const tools = [
  tool(readSchema),
  tool({ type: 'object', properties: { cmd: { type: 'string' } } }, { name: 'Bash', concurrencySafe: false }),
];

/** Finished calls as renderMessages takes them. */
export function result(id: string, name: string, payload: Record<string, unknown>, extra: Partial<ToolResultInput> = {}): ToolResultInput {
  return { tool_call_id: id, name, content: JSON.stringify(payload), is_error: payload.status === 'error', payload, ...extra };
}

export const ok = result('call_1', 'Read', { status: 'success', text: '1\thello', data: { file_size_bytes: 5 }, truncated: null });
export const failed = result('call_2', 'Edit', {
  status: 'error',
  text: '',
  error: { code: 'CONFLICT', message: 'The file changed since it was read.', retryable: false },
  truncated: null,
});
export const generated = result(
  'call_0123456789abcdef0123456789abcdef',
  'LS',
  { status: 'success', text: 'a\nb', truncated: null },
  { id_generated: true },
);

/** Content blocks: images providers take, one Gemini does not, one none takes, audio, one moved to the spill store. */
export const png = { type: 'image', mime_type: 'image/png', data: 'iVBORw0KGgo=' } as const;
export const gif = { type: 'image', mime_type: 'image/gif', data: 'R0lGODlh' } as const;
export const bmp = { type: 'image', mime_type: 'image/bmp', data: 'Qk0=' } as const;
export const audio = { type: 'audio', mime_type: 'audio/wav', data: 'UklGRg==' } as const;
export const moved = {
  type: 'image',
  mime_type: 'image/png',
  bytes: 9,
  sha256: 'ab',
  url: '/outputs/x',
  note: 'over the output budget: GET /outputs/x for it',
} as const;
export const shot = result(
  'call_s',
  'shot',
  { status: 'success', text: 'here', truncated: null },
  { blocks: [png, gif, bmp, audio, moved] },
);

/** Gemini's stand-in for a schema that names no type: every JSON type. */
export const ANY_VALUE = [
  { type: 'string' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'object' },
  { type: 'array', items: { type: 'string' } },
];
