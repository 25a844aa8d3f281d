import { isRecord, own } from '../../protocol/json.js';
import type { JsonSchema } from '../../tools/tool.js';
import {
  appendNote,
  arrayOf,
  copyKeys,
  enumValues,
  flattenAllOf,
  inlineRef,
  isNullSchema,
  isString,
  mapEntries,
  merge,
  newScope,
  noteDefault,
  typeList,
  typeOfValues,
  type Node,
  type Scope,
} from './schema-walk.js';
import type { ToolSchemaSource } from './source.js';

/** A Gemini function declaration; `parameters` is left out for a tool without arguments. */
interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters?: JsonSchema;
}

/** A Gemini `tools` entry. */
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

// Gemini's function-declaration `parameters` is "a select subset of an OpenAPI
// 3.0 schema object" (generativelanguage v1beta `Schema`, as typed by
// @google/genai): type, format, title, description, nullable, enum (strings),
// properties, required, min/maxProperties, items, min/maxItems,
// min/maxLength, pattern, minimum, maximum, anyOf (plus default and example,
// accepted but ignored). Everything else is dropped or rewritten below. Known
// 400s shape the rest: `properties` must be non-empty for OBJECT and only
// appears on objects, `required` may only name listed properties, arrays need
// `items`. Formats: float/double, int32/int64, enum/date-time.

const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const GEMINI_FORMATS: Partial<Record<string, readonly string[]>> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};

function toGeminiParameters(parameters: JsonSchema): JsonSchema | undefined {
  const root = structuredClone(parameters);
  const scope = newScope(root);
  const schema = geminiNode({ ...root, type: 'object' }, scope);
  const properties = own(schema, 'properties');
  // A tool without arguments gets no `parameters`: Gemini rejects an OBJECT without properties.
  return isRecord(properties) ? schema : undefined;
}

// A recursive reference is cut to a bare object; the gateway still validates the real shape.
function geminiCut(target?: Node): Node {
  const description = target ? own(target, 'description') : undefined;
  return isString(description) ? { type: 'object', description } : { type: 'object' };
}

function geminiNode(input: unknown, scope: Scope): Node {
  if (!isRecord(input)) return {};
  const ref = own(input, '$ref');
  if (isString(ref)) return inlineRef(input, ref, scope, (merged) => geminiNode(merged, scope), geminiCut);
  const node = flattenAllOf(input, scope);

  const declared = typeList(node);
  let nullable = own(node, 'nullable') === true || declared.includes('null');
  let values = enumValues(node);
  if (values?.includes(null)) {
    nullable = true;
    values = values.filter((value) => value !== null);
  }
  let types = declared.filter((type) => GEMINI_TYPES.has(type));
  if (types.length === 0) types = inferGeminiType(node, values);

  const branches: Node[] = [];
  for (const branch of [...arrayOf(own(node, 'anyOf')), ...arrayOf(own(node, 'oneOf'))]) {
    if (isNullSchema(branch)) nullable = true;
    else branches.push(geminiNode(branch, scope));
  }
  // One type per Gemini schema: a type list becomes anyOf branches, each with its own keywords.
  const out: Node = types.length === 1 ? geminiTyped(node, types[0] as string, values, scope) : {};
  if (types.length > 1) branches.push(...types.map((type) => geminiTyped(node, type, values, scope)));

  for (const key of ['title', 'description']) if (isString(own(node, key))) out[key] = node[key];
  const enumKept = values !== undefined && values.every(isString) && types.includes('string');
  if (values !== undefined && values.length > 0 && !enumKept) {
    out.description = appendNote(out.description, `One of: ${values.map((value) => JSON.stringify(value)).join(', ')}.`);
  }
  // Gemini accepts `default` but ignores it; the description is what the model reads.
  noteDefault(node, out);
  if (nullable) out.nullable = true;
  if (branches.length === 1 && types.length === 0) return merge(out, branches[0] as Node);
  if (branches.length > 0) out.anyOf = branches;
  return out;
}

function inferGeminiType(node: Node, values: unknown[] | undefined): string[] {
  if (own(node, 'properties') !== undefined) return ['object'];
  if (own(node, 'items') !== undefined) return ['array'];
  const type = typeOfValues(values);
  return type === undefined ? [] : [type];
}

function geminiTyped(node: Node, type: string, values: unknown[] | undefined, scope: Scope): Node {
  const out: Node = { type };
  const format = own(node, 'format');
  if (isString(format) && GEMINI_FORMATS[type]?.includes(format)) out.format = format;
  if (type === 'object') {
    const declared = own(node, 'properties');
    const properties = isRecord(declared) ? mapEntries(declared, (schema) => geminiNode(schema, scope)) : {};
    if (Object.keys(properties).length > 0) {
      out.properties = properties;
      const required = [...new Set(arrayOf(own(node, 'required')).filter(isString))].filter((name) => Object.hasOwn(properties, name));
      if (required.length > 0) out.required = required;
    }
    copyKeys(node, out, ['minProperties', 'maxProperties']);
  } else if (type === 'array') {
    // A tuple (`items` as a list, `prefixItems`) has no Gemini form: it becomes a list of anything.
    const items = own(node, 'items');
    out.items = isRecord(items) ? geminiNode(items, scope) : {};
    copyKeys(node, out, ['minItems', 'maxItems']);
  } else if (type === 'string') {
    if (values !== undefined && values.length > 0 && values.every(isString)) out.enum = values;
    copyKeys(node, out, ['minLength', 'maxLength', 'pattern']);
  } else if (type === 'number' || type === 'integer') {
    copyKeys(node, out, ['minimum', 'maximum']);
  }
  return out;
}
