import { isRecord, own, type JsonObject } from '../json.js';
import * as walk from './schema-walk.js';
import type { Node, Scope } from './schema-walk.js';

// OpenAI Structured Outputs, "Supported schemas": the keywords below, $defs and $ref (recursion included), anyOf not at the root; no allOf,
// no `default`, no siblings beside `$ref`; every object closed with every property required, optional ones nullable. Size limits unchecked.

const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const STRICT_KEYWORDS = ['title', 'description', 'enum', 'const', 'pattern', 'multipleOf', 'minimum', 'maximum', 'minItems', 'maxItems'];

/** Raised inside the strict conversion when a schema has no strict-mode form. */
class NoStrictForm extends Error {}

/** The strict-mode form of a tool's parameters, or undefined when the schema has none (see toOpenAI). */
export function toStrictParameters(root: JsonObject): JsonObject | undefined {
  const scope = walk.newScope(root);
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
  if (!isRecord(input)) throw new NoStrictForm();
  const ref = own(input, '$ref');
  if (walk.isString(ref)) {
    if (Object.keys(input).length === 1) return { $ref: ref };
    // Keywords beside `$ref` are rejected: inline the target; on a cycle keep the bare reference.
    return walk.inlineRef(
      input,
      ref,
      scope,
      (merged) => strictNode(merged, scope, isRoot),
      () => ({ $ref: ref }),
    );
  }
  const node = walk.flattenAllOf(input, scope);
  const types = walk.typeList(node);
  const out: Node = {};
  const type = own(node, 'type');
  if (walk.isString(type) || Array.isArray(type)) out.type = type;
  else if (own(node, 'properties') !== undefined) out.type = 'object';
  else if (own(node, 'items') !== undefined) out.type = 'array';
  walk.copyKeys(node, out, STRICT_KEYWORDS);
  // Strict mode rejects `default`; the model still learns it from the description.
  walk.noteDefault(node, out);
  // Draft-04's boolean form has no strict equivalent.
  for (const key of ['exclusiveMinimum', 'exclusiveMaximum']) if (typeof own(node, key) === 'number') out[key] = node[key];
  const format = own(node, 'format');
  if (walk.isString(format) && STRICT_FORMATS.has(format)) out.format = format;

  if (types.includes('object') || out.type === 'object') Object.assign(out, strictObject(node, scope, isRoot));
  if (types.includes('array') || out.type === 'array') out.items = strictItems(node, scope);
  const branches = [...walk.arrayOf(own(node, 'anyOf')), ...walk.arrayOf(own(node, 'oneOf'))];
  // oneOf becomes anyOf, as openai-agents does: the model cannot be held to "exactly one" anyway.
  if (branches.length > 0) out.anyOf = branches.map((branch) => strictNode(branch, scope));
  for (const key of ['$defs', 'definitions']) {
    const definitions = own(node, key);
    if (isRecord(definitions)) out[key] = walk.mapEntries(definitions, (schema) => strictNode(schema, scope));
  }
  if (out.type === undefined && out.anyOf === undefined) {
    const inferred = walk.typeOfValues(walk.enumValues(node));
    if (inferred === undefined) throw new NoStrictForm();
    out.type = inferred;
  }
  return out;
}

function strictObject(node: Node, scope: Scope, isRoot: boolean): Node {
  const declared = own(node, 'properties');
  const extra = own(node, 'additionalProperties');
  // Strict mode closes every object, so an open map has no strict form; at the root, no properties means a tool without arguments.
  if ((extra !== undefined && extra !== false) || own(node, 'patternProperties') !== undefined) throw new NoStrictForm();
  if (!isRecord(declared) && extra !== false && !isRoot) throw new NoStrictForm();
  const required = new Set(walk.arrayOf(own(node, 'required')).filter(walk.isString));
  const properties = isRecord(declared) ? walk.mapEntries(declared, (schema) => strictNode(schema, scope)) : {};
  for (const [name, schema] of Object.entries(properties)) {
    if (!required.has(name)) walk.put(properties, name, nullable(schema as Node));
  }
  return { properties, required: Object.keys(properties), additionalProperties: false };
}

function strictItems(node: Node, scope: Scope): Node {
  const items = own(node, 'items');
  // Strict mode has no tuples and no "array of anything".
  if (!isRecord(items) || own(node, 'prefixItems') !== undefined) throw new NoStrictForm();
  return strictNode(items, scope);
}

/** An optional property made required-but-nullable: strict mode's form of "may be left out". */
function nullable(schema: Node): Node {
  const type = own(schema, 'type');
  const anyOf = own(schema, 'anyOf');
  if (Array.isArray(anyOf)) return anyOf.some(walk.isNullSchema) ? schema : { ...schema, anyOf: [...anyOf, { type: 'null' }] };
  if ((walk.isString(type) || Array.isArray(type)) && !Object.hasOwn(schema, 'const')) {
    const types: unknown[] = walk.isString(type) ? [type] : type;
    if (types.includes('null')) return schema;
    const out: Node = { ...schema, type: [...types, 'null'] };
    const values = own(schema, 'enum');
    if (Array.isArray(values) && !values.includes(null)) out.enum = [...values, null];
    return out;
  }
  // A bare reference or a const: wrap it, keeping the description where the model reads it.
  const description = own(schema, 'description');
  const inner = walk.without(schema, ['description']);
  return description === undefined ? { anyOf: [inner, { type: 'null' }] } : { description, anyOf: [inner, { type: 'null' }] };
}
