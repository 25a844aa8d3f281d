import { isRecord, own } from '../../protocol/json.js';
import type { JsonSchema } from '../../tools/tool.js';
import {
  arrayOf,
  copyKeys,
  enumValues,
  flattenAllOf,
  inlineRef,
  isNullSchema,
  isString,
  mapEntries,
  newScope,
  noteDefault,
  put,
  typeList,
  typeOfValues,
  without,
  type Node,
  type Scope,
} from './schema-walk.js';

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

/**
 * The strict-mode form of a tool's parameters, or undefined when the schema
 * has none (see toOpenAI).
 */
export function toStrictParameters(root: JsonSchema): JsonSchema | undefined {
  const scope = newScope(root);
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
  if (isString(ref)) {
    if (Object.keys(input).length === 1) return { $ref: ref };
    // Keywords beside `$ref` are rejected: inline the target; on a cycle keep the bare reference.
    return inlineRef(
      input,
      ref,
      scope,
      (merged) => strictNode(merged, scope, isRoot),
      () => ({ $ref: ref }),
    );
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
    if (isRecord(definitions)) out[key] = mapEntries(definitions, (schema) => strictNode(schema, scope));
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
  if (!isRecord(declared) && extra !== false && !isRoot) throw new NoStrictForm();
  const required = new Set(arrayOf(own(node, 'required')).filter(isString));
  const properties = isRecord(declared) ? mapEntries(declared, (schema) => strictNode(schema, scope)) : {};
  for (const [name, schema] of Object.entries(properties)) {
    if (!required.has(name)) put(properties, name, nullable(schema as Node));
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
