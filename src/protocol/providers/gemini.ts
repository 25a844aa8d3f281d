import type { ContentBlock } from '../content.js';
import { isRecord, own, type JsonObject } from '../json.js';
import type { Dialect, ToolResultInput, ToolSchemaSource } from './dialect.js';
import { imagesOf } from './native-content.js';
import * as walk from './schema-walk.js';
import type { Node, Scope } from './schema-walk.js';

/** A Gemini function declaration; `parameters` is left out for a tool without arguments. */
interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters?: JsonObject;
}

interface GeminiTool {
  functionDeclarations: GeminiFunctionDeclaration[];
}

/** Gemini `tools`: one entry holding every declaration, none when there is no tool. */
export function toGemini(tools: readonly ToolSchemaSource[]): GeminiTool[] {
  if (tools.length === 0) return [];
  const functionDeclarations = tools.map((tool): GeminiFunctionDeclaration => {
    const parameters = toGeminiParameters(tool.parameters);
    return parameters ? { name: tool.name, description: tool.description, parameters } : { name: tool.name, description: tool.description };
  });
  return [{ functionDeclarations }];
}

// Gemini's `parameters` is "a select subset of an OpenAPI 3.0 schema object" (v1beta `Schema`): the keywords kept below, all else dropped
// or rewritten. An OBJECT needs non-empty `properties`, `required` names only listed ones, an array needs `items`.

const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const GEMINI_FORMATS: Partial<Record<string, readonly string[]>> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};

function toGeminiParameters(parameters: JsonObject): JsonObject | undefined {
  const root = structuredClone(parameters);
  const scope = walk.newScope(root);
  const schema = geminiNode({ ...root, type: 'object' }, scope);
  const properties = own(schema, 'properties');
  // A tool without arguments gets no `parameters`: Gemini rejects an OBJECT without properties.
  return isRecord(properties) ? schema : undefined;
}

// A recursive reference is cut to a bare object; the gateway still validates the real shape.
function geminiCut(target?: Node): Node {
  const description = target ? own(target, 'description') : undefined;
  return walk.isString(description) ? { type: 'object', description } : { type: 'object' };
}

function geminiNode(input: unknown, scope: Scope): Node {
  if (!isRecord(input)) return {};
  const ref = own(input, '$ref');
  if (walk.isString(ref)) return walk.inlineRef(input, ref, scope, (merged) => geminiNode(merged, scope), geminiCut);
  const node = walk.flattenAllOf(input, scope);

  const declared = walk.typeList(node);
  let nullable = own(node, 'nullable') === true || declared.includes('null');
  let values = walk.enumValues(node);
  if (values?.includes(null)) {
    nullable = true;
    values = values.filter((value) => value !== null);
  }
  let types = declared.filter((type) => GEMINI_TYPES.has(type));
  if (types.length === 0) types = inferGeminiType(node, values);

  const branches: Node[] = [];
  for (const branch of [...walk.arrayOf(own(node, 'anyOf')), ...walk.arrayOf(own(node, 'oneOf'))]) {
    if (walk.isNullSchema(branch)) nullable = true;
    // A branch that only constrains (`{"required": ["a"]}`) has no Gemini form and is dropped; the gateway still validates it.
    else if (isRecord(branch) && SHAPE_KEYS.some((key) => own(branch, key) !== undefined)) branches.push(geminiNode(branch, scope));
  }
  // One type per Gemini schema: a type list becomes anyOf branches, each with its own keywords.
  const out: Node = types.length === 1 ? geminiTyped(node, types[0] as string, values, scope) : {};
  if (types.length > 1) branches.push(...types.map((type) => geminiTyped(node, type, values, scope)));

  for (const key of ['title', 'description']) if (walk.isString(own(node, key))) out[key] = node[key];
  const enumKept = values !== undefined && values.every(walk.isString) && types.includes('string');
  if (values !== undefined && values.length > 0 && !enumKept) {
    out.description = walk.appendNote(out.description, `One of: ${values.map((value) => JSON.stringify(value)).join(', ')}.`);
  }
  // Gemini accepts `default` but ignores it; the description is what the model reads.
  walk.noteDefault(node, out);
  if (nullable) out.nullable = true;
  if (branches.length === 1 && types.length === 0) return walk.merge(out, branches[0] as Node);
  if (branches.length > 0) out.anyOf = branches;
  // A schema that names no type (any value) has none in Gemini, whose every schema needs a type or anyOf: every JSON type stands for it.
  else if (types.length === 0) out.anyOf = ANY_VALUE.map((branch) => ({ ...branch }));
  return out;
}

// What makes a schema say which values it takes, beyond constraints on them.
const SHAPE_KEYS = ['type', 'properties', 'items', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', '$ref'];

const ANY_VALUE: readonly Node[] = [
  { type: 'string' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'object' },
  { type: 'array', items: { type: 'string' } },
];

function inferGeminiType(node: Node, values: unknown[] | undefined): string[] {
  if (own(node, 'properties') !== undefined) return ['object'];
  if (own(node, 'items') !== undefined) return ['array'];
  const type = walk.typeOfValues(values);
  return type === undefined ? [] : [type];
}

function geminiTyped(node: Node, type: string, values: unknown[] | undefined, scope: Scope): Node {
  const out: Node = { type };
  const format = own(node, 'format');
  if (walk.isString(format) && GEMINI_FORMATS[type]?.includes(format)) out.format = format;
  if (type === 'object') {
    const declared = own(node, 'properties');
    const properties = isRecord(declared) ? walk.mapEntries(declared, (schema) => geminiNode(schema, scope)) : {};
    if (Object.keys(properties).length > 0) {
      out.properties = properties;
      const required = [...new Set(walk.arrayOf(own(node, 'required')).filter(walk.isString))].filter((name) =>
        Object.hasOwn(properties, name),
      );
      if (required.length > 0) out.required = required;
    }
    walk.copyKeys(node, out, ['minProperties', 'maxProperties']);
  } else if (type === 'array') {
    // A tuple (`items` as a list, `prefixItems`), or no `items`, has no Gemini form: it becomes a list of anything.
    const items = own(node, 'items');
    out.items = geminiNode(isRecord(items) ? items : {}, scope);
    walk.copyKeys(node, out, ['minItems', 'maxItems']);
  } else if (type === 'string') {
    if (values !== undefined && values.length > 0 && values.every(walk.isString)) out.enum = values;
    walk.copyKeys(node, out, ['minLength', 'maxLength', 'pattern']);
  } else if (type === 'number' || type === 'integer') {
    walk.copyKeys(node, out, ['minimum', 'maximum']);
  }
  return out;
}

/** One user turn holding every function response; images as inline-data `parts` of the response. */
interface GeminiFunctionResponseMessage {
  role: 'user';
  parts: { functionResponse: { id?: string; name: string; response: Record<string, unknown>; parts?: Record<string, unknown>[] } }[];
}

/** The image types a Gemini function response takes inline. */
const GEMINI_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/webp']);

/** `functionResponse.parts`: each image as inline data; undefined when there is none. */
function geminiParts(content: readonly ContentBlock[] | undefined): Record<string, unknown>[] | undefined {
  const images = imagesOf(content, GEMINI_IMAGE_TYPES);
  return images.length === 0 ? undefined : images.map((image) => ({ inlineData: { mimeType: image.mime_type, data: image.data } }));
}

export const gemini = {
  // @google/genai `Tool.functionDeclarations`: "Maximum 512 function declarations can be provided."
  maxTools: 512,
  tools: (tools) => (toGemini(tools)[0]?.functionDeclarations ?? []) as unknown as Record<string, unknown>[],
  wrap: (tools) => [{ functionDeclarations: tools }],
  calls: {
    // `{"functionCall":{"id","name","args"}}`
    gemini: { wrapper: 'functionCall', id: 'id', args: 'args' },
  },
  messages(results: readonly ToolResultInput[]): GeminiFunctionResponseMessage[] {
    // An empty turn is rejected.
    if (results.length === 0) return [];
    const parts = results.map((r) => {
      // A made-up id gets no `id`: there is no call id on the model's side for it to match.
      const response: GeminiFunctionResponseMessage['parts'][number]['functionResponse'] = r.id_generated
        ? { name: r.name, response: r.payload }
        : { id: r.tool_call_id, name: r.name, response: r.payload };
      const images = geminiParts(r.blocks);
      if (images) response.parts = images;
      return { functionResponse: response };
    });
    return [{ role: 'user', parts }];
  },
} satisfies Dialect;
