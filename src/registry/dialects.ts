import type { JsonSchema, Tool } from '../tools/tool.js';

/** The fields of a tool its model-facing schema is built from. */
export type ToolSchemaSource = Pick<Tool, 'name' | 'description' | 'parameters' | 'concurrencySafe'>;

/** A Chat Completions `tools` entry. */
export interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema; strict?: true };
}

/** An OpenAI Responses `tools` entry: the Chat Completions one without the `function` wrapper. */
export interface ResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

/** An Anthropic Messages `tools` entry. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

/** A Gemini function declaration; `parameters` is left out for a tool without arguments. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters?: JsonSchema;
}

/** A Gemini `tools` entry. */
export interface GeminiTool {
  functionDeclarations: GeminiFunctionDeclaration[];
}

/** An MCP `tools/list` entry. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean };
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

/** Anthropic `tools`: Anthropic takes JSON Schema as it is. */
export function toAnthropic(tools: readonly ToolSchemaSource[]): AnthropicTool[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: structuredClone(tool.parameters) }));
}

/** Gemini `tools`: one entry holding every declaration, none when there is no tool. */
export function toGemini(tools: readonly ToolSchemaSource[]): GeminiTool[] {
  if (tools.length === 0) return [];
  const functionDeclarations = tools.map((tool): GeminiFunctionDeclaration => {
    const parameters = toGeminiParameters(tool.parameters);
    return parameters
      ? { name: tool.name, description: tool.description, parameters }
      : { name: tool.name, description: tool.description };
  });
  return [{ functionDeclarations }];
}

/** MCP `tools`: a concurrency-safe tool is a read-only one (contract 3.3). */
export function toMcp(tools: readonly ToolSchemaSource[]): McpTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: structuredClone(tool.parameters),
    annotations: { readOnlyHint: tool.concurrencySafe, destructiveHint: !tool.concurrencySafe },
  }));
}

type Node = Record<string, unknown>;

interface Scope {
  root: Node;
  /** Reference targets being expanded on the current path: meeting one again is a cycle. */
  expanding: Node[];
  /** Expansions left; past them every reference is cut, so shared definitions cannot blow up the output. */
  budget: number;
}

const MAX_INLINED_REFS = 500;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function own(node: Node, key: string): unknown {
  return Object.hasOwn(node, key) ? node[key] : undefined;
}

// Property and definition names come from the schema; one called `__proto__` must stay a plain key.
function put(node: Node, key: string, value: unknown): void {
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
}

function mapEntries(node: Node, convert: (value: unknown) => Node): Node {
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) put(out, key, convert(value));
  return out;
}

function without(node: Node, keys: readonly string[]): Node {
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) if (!keys.includes(key)) put(out, key, value);
  return out;
}

function typeList(node: Node): string[] {
  const type = own(node, 'type');
  return isString(type) ? [type] : Array.isArray(type) ? type.filter(isString) : [];
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function enumValues(node: Node): unknown[] | undefined {
  if (Object.hasOwn(node, 'const')) return [node.const];
  const values = own(node, 'enum');
  return Array.isArray(values) ? values : undefined;
}

function isNullSchema(value: unknown): boolean {
  return isNode(value) && own(value, 'type') === 'null';
}

function appendNote(description: unknown, note: string): string {
  return isString(description) && description !== '' ? `${description} ${note}` : note;
}

function noteDefault(from: Node, to: Node): void {
  if (Object.hasOwn(from, 'default')) to.description = appendNote(to.description, `Default: ${JSON.stringify(from.default)}.`);
}

/** RFC 6901 pointer in a URI fragment (`#/$defs/a~1b`), resolved from the root. */
function resolvePointer(root: Node, ref: string): Node | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (!isNode(current) && !Array.isArray(current)) return undefined;
    current = Object.hasOwn(current, segment) ? (current as Node)[segment] : undefined;
  }
  return isNode(current) ? current : undefined;
}

/**
 * Merge two schemas as if both applied: properties and required lists are
 * united, any other keyword keeps `base`'s value. An approximation of allOf
 * and of `$ref` with siblings, good enough to describe arguments to a model;
 * the gateway still validates against the original schema.
 */
function merge(base: Node, extra: Node): Node {
  const out = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = own(out, key);
    if (key === 'properties' && isNode(current) && isNode(value)) {
      const properties = { ...current };
      for (const [name, schema] of Object.entries(value)) if (!Object.hasOwn(properties, name)) put(properties, name, schema);
      out.properties = properties;
    } else if (key === 'required' && Array.isArray(current) && Array.isArray(value)) {
      out.required = [...new Set([...current, ...value])];
    } else if (current === undefined) {
      put(out, key, value);
    }
  }
  return out;
}

/**
 * Replace `node`'s `$ref` by its target merged with `node`'s other keywords
 * (which win), then convert. A cycle, an exhausted budget or a reference that
 * does not resolve (only local pointers do) goes to `cut` instead.
 */
function inlineRef(node: Node, ref: string, scope: Scope, convert: (merged: Node) => Node, cut: (target?: Node) => Node): Node {
  const target = resolvePointer(scope.root, ref);
  if (!target || scope.expanding.includes(target) || scope.budget <= 0) return cut(target);
  scope.budget -= 1;
  scope.expanding.push(target);
  try {
    // Pointers resolve from the root, so definitions nested in the target are never reached from here.
    return convert(merge(without(node, ['$ref']), without(target, ['$defs', 'definitions'])));
  } finally {
    scope.expanding.pop();
  }
}

/** Fold `allOf` into the schema; neither Gemini nor OpenAI strict mode takes it. */
function flattenAllOf(node: Node, scope: Scope): Node {
  const branches = own(node, 'allOf');
  if (!Array.isArray(branches)) return node;
  let merged = without(node, ['allOf']);
  for (const branch of branches) {
    if (!isNode(branch)) continue;
    const ref = own(branch, '$ref');
    let resolved = branch;
    if (isString(ref)) {
      const target = resolvePointer(scope.root, ref);
      resolved = without(branch, ['$ref']);
      if (target && !scope.expanding.includes(target) && scope.budget > 0) {
        scope.budget -= 1;
        resolved = merge(resolved, without(target, ['$defs', 'definitions']));
      }
    }
    merged = merge(merged, flattenAllOf(resolved, scope));
  }
  return merged;
}

// ---------------------------------------------------------------- Gemini
//
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
  const scope: Scope = { root, expanding: [root], budget: MAX_INLINED_REFS };
  const schema = geminiNode({ ...root, type: 'object' }, scope);
  const properties = own(schema, 'properties');
  // A tool without arguments gets no `parameters`: Gemini rejects an OBJECT without properties.
  return isNode(properties) ? schema : undefined;
}

// A recursive reference is cut to a bare object; the gateway still validates the real shape.
function geminiCut(target?: Node): Node {
  const description = target ? own(target, 'description') : undefined;
  return isString(description) ? { type: 'object', description } : { type: 'object' };
}

function geminiNode(input: unknown, scope: Scope): Node {
  if (!isNode(input)) return {};
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

function copyKeys(from: Node, to: Node, keys: readonly string[]): void {
  for (const key of keys) if (Object.hasOwn(from, key)) to[key] = from[key];
}

function geminiTyped(node: Node, type: string, values: unknown[] | undefined, scope: Scope): Node {
  const out: Node = { type };
  const format = own(node, 'format');
  if (isString(format) && GEMINI_FORMATS[type]?.includes(format)) out.format = format;
  if (type === 'object') {
    const declared = own(node, 'properties');
    const properties = isNode(declared) ? mapEntries(declared, (schema) => geminiNode(schema, scope)) : {};
    if (Object.keys(properties).length > 0) {
      out.properties = properties;
      const required = [...new Set(arrayOf(own(node, 'required')).filter(isString))].filter((name) => Object.hasOwn(properties, name));
      if (required.length > 0) out.required = required;
    }
    copyKeys(node, out, ['minProperties', 'maxProperties']);
  } else if (type === 'array') {
    // A tuple (`items` as a list, `prefixItems`) has no Gemini form: it becomes a list of anything.
    const items = own(node, 'items');
    out.items = isNode(items) ? geminiNode(items, scope) : {};
    copyKeys(node, out, ['minItems', 'maxItems']);
  } else if (type === 'string') {
    if (values !== undefined && values.length > 0 && values.every(isString)) out.enum = values;
    copyKeys(node, out, ['minLength', 'maxLength', 'pattern']);
  } else if (type === 'number' || type === 'integer') {
    copyKeys(node, out, ['minimum', 'maximum']);
  }
  return out;
}

// ---------------------------------------------------------- OpenAI strict
//
// OpenAI Structured Outputs, "Supported schemas" (platform.openai.com/docs/
// guides/structured-outputs, 2025–2026 text): types string, number, boolean,
// integer, object, array, enum, anyOf (not at the root); strings: pattern,
// format (date-time, time, date, duration, email, hostname, ipv4, ipv6,
// uuid); numbers: multipleOf, minimum, maximum, exclusiveMinimum,
// exclusiveMaximum; arrays: minItems, maxItems; $defs/definitions and $ref
// (recursion included). Not supported: allOf, not, dependentRequired,
// dependentSchemas, if/then/else; every object needs `additionalProperties:
// false` and every property in `required`, optional ones expressed as
// nullable. `$ref` may not have sibling keywords and `default` is not
// supported (openai-python `to_strict_json_schema`). Size limits (5000
// properties, 10 levels) are not checked here.

const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const STRICT_KEYWORDS = ['title', 'description', 'enum', 'const', 'pattern', 'multipleOf', 'minimum', 'maximum', 'minItems', 'maxItems'];

/** Raised inside the strict conversion when a schema has no strict-mode form. */
class NoStrictForm extends Error {}

function toStrictParameters(root: JsonSchema): JsonSchema | undefined {
  const scope: Scope = { root, expanding: [root], budget: MAX_INLINED_REFS };
  try {
    const schema = strictNode(root, scope, true);
    return own(schema, 'type') === 'object' && own(schema, 'anyOf') === undefined ? schema : undefined;
  } catch (error) {
    if (error instanceof NoStrictForm) return undefined;
    throw error;
  }
}

function strictNode(input: unknown, scope: Scope, isRoot = false): Node {
  // `true`/`false` schemas accept anything or nothing; strict mode needs a typed schema.
  if (!isNode(input)) throw new NoStrictForm();
  const ref = own(input, '$ref');
  if (isString(ref)) {
    if (Object.keys(input).length === 1) return { $ref: ref };
    // Keywords beside `$ref` are rejected: inline the target; on a cycle keep the bare reference.
    return inlineRef(input, ref, scope, (merged) => strictNode(merged, scope, isRoot), () => ({ $ref: ref }));
  }
  const node = flattenAllOf(input, scope);
  const types = typeList(node);
  const out: Node = {};
  const type = own(node, 'type');
  if (isString(type) || Array.isArray(type)) out.type = type;
  else if (own(node, 'properties') !== undefined) out.type = 'object';
  else if (own(node, 'items') !== undefined) out.type = 'array';
  copyKeys(node, out, STRICT_KEYWORDS);
  // Strict mode rejects `default`; the model still learns it from the description.
  noteDefault(node, out);
  // Draft-04's boolean form has no strict equivalent.
  for (const key of ['exclusiveMinimum', 'exclusiveMaximum']) if (typeof own(node, key) === 'number') out[key] = node[key];
  const format = own(node, 'format');
  if (isString(format) && STRICT_FORMATS.has(format)) out.format = format;

  if (types.includes('object') || out.type === 'object') Object.assign(out, strictObject(node, scope, isRoot));
  if (types.includes('array') || out.type === 'array') out.items = strictItems(node, scope);
  const branches = [...arrayOf(own(node, 'anyOf')), ...arrayOf(own(node, 'oneOf'))];
  // oneOf becomes anyOf, as openai-agents does: the model cannot be held to "exactly one" anyway.
  if (branches.length > 0) out.anyOf = branches.map((branch) => strictNode(branch, scope));
  for (const key of ['$defs', 'definitions']) {
    const definitions = own(node, key);
    if (isNode(definitions)) out[key] = mapEntries(definitions, (schema) => strictNode(schema, scope));
  }
  if (out.type === undefined && out.anyOf === undefined) {
    const inferred = typeOfValues(enumValues(node));
    if (inferred === undefined) throw new NoStrictForm();
    out.type = inferred;
  }
  return out;
}

function strictObject(node: Node, scope: Scope, isRoot: boolean): Node {
  const declared = own(node, 'properties');
  const extra = own(node, 'additionalProperties');
  // Strict mode closes every object, so an open map has no strict form. At the
  // root, an object without properties is a tool without arguments.
  if ((extra !== undefined && extra !== false) || own(node, 'patternProperties') !== undefined) throw new NoStrictForm();
  if (!isNode(declared) && extra !== false && !isRoot) throw new NoStrictForm();
  const required = new Set(arrayOf(own(node, 'required')).filter(isString));
  const properties = isNode(declared)
    ? mapEntries(declared, (schema) => strictNode(schema, scope))
    : {};
  for (const [name, schema] of Object.entries(properties)) {
    if (!required.has(name)) put(properties, name, nullable(schema as Node));
  }
  return { properties, required: Object.keys(properties), additionalProperties: false };
}

function strictItems(node: Node, scope: Scope): Node {
  const items = own(node, 'items');
  // Strict mode has no tuples and no "array of anything".
  if (!isNode(items) || own(node, 'prefixItems') !== undefined) throw new NoStrictForm();
  return strictNode(items, scope);
}

/** An optional property made required-but-nullable: strict mode's form of "may be left out". */
function nullable(schema: Node): Node {
  const type = own(schema, 'type');
  const anyOf = own(schema, 'anyOf');
  if (Array.isArray(anyOf)) return anyOf.some(isNullSchema) ? schema : { ...schema, anyOf: [...anyOf, { type: 'null' }] };
  if ((isString(type) || Array.isArray(type)) && !Object.hasOwn(schema, 'const')) {
    const types: unknown[] = isString(type) ? [type] : type;
    if (types.includes('null')) return schema;
    const out: Node = { ...schema, type: [...types, 'null'] };
    const values = own(schema, 'enum');
    if (Array.isArray(values) && !values.includes(null)) out.enum = [...values, null];
    return out;
  }
  // A bare reference or a const: wrap it, keeping the description where the model reads it.
  const description = own(schema, 'description');
  const inner = without(schema, ['description']);
  return description === undefined ? { anyOf: [inner, { type: 'null' }] } : { description, anyOf: [inner, { type: 'null' }] };
}

function typeOfValues(values: unknown[] | undefined): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  if (values.every(isString)) return 'string';
  if (values.every((value) => typeof value === 'boolean')) return 'boolean';
  if (values.every((value) => Number.isInteger(value))) return 'integer';
  if (values.every((value) => typeof value === 'number')) return 'number';
  return undefined;
}
