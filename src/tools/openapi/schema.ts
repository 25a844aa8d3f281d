import { isRecord, type JsonObject } from '../../protocol/json.js';

/** A schema the import cannot hand on: a `$ref` left after dereferencing (a recursive or an external one). */
class UnresolvedRefError extends Error {
  constructor(readonly ref: string) {
    super(`its schema holds a $ref the import cannot inline (${ref}: recursive, or outside the document)`);
  }
}

// Keywords whose value is a map from names to schemas: the names are data, never keywords.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);
// Keywords whose value is data: copied as they are.
const DATA = new Set(['enum', 'const', 'default', 'examples', 'required', 'type', 'format', 'pattern', 'description', 'title']);
// OpenAPI annotations that are not JSON Schema, or that only document: dropped from the model's schema.
const DROPPED = new Set(['example', 'xml', 'discriminator', 'externalDocs', 'nullable', 'readOnly', 'writeOnly', 'deprecated']);

/**
 * An OpenAPI Schema Object as a request's JSON Schema: `nullable` and boolean exclusive bounds in JSON Schema's form, read-only properties
 * and non-JSON-Schema annotations left out. The input is never changed; `seen` keeps shared schemas shared.
 */
export function toJsonSchema(schema: unknown, seen: WeakMap<object, JsonObject> = new WeakMap()): JsonObject {
  if (!isRecord(schema)) return {};
  const done = seen.get(schema);
  if (done) return done;
  if (typeof schema.$ref === 'string') throw new UnresolvedRefError(schema.$ref);
  const out: JsonObject = {};
  seen.set(schema, out);
  const readOnly = new Set<string>();
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (DATA.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      const map: JsonObject = {};
      for (const [name, sub] of Object.entries(value)) {
        if (key === 'properties' && isRecord(sub) && sub.readOnly === true) readOnly.add(name);
        else map[name] = toJsonSchema(sub, seen);
      }
      out[key] = map;
    } else if (Array.isArray(value)) out[key] = value.map((item) => (isRecord(item) ? toJsonSchema(item, seen) : item));
    else if (isRecord(value)) out[key] = toJsonSchema(value, seen);
    else out[key] = value;
  }
  if (readOnly.size > 0 && Array.isArray(out.required)) out.required = (out.required as unknown[]).filter((n) => !readOnly.has(String(n)));
  for (const [bound, exclusive] of [['minimum', 'exclusiveMinimum'], ['maximum', 'exclusiveMaximum']] as const) {
    if (typeof schema[exclusive] !== 'boolean') continue;
    delete out[exclusive];
    if (schema[exclusive] === true && typeof schema[bound] === 'number') {
      out[exclusive] = schema[bound];
      delete out[bound];
    }
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  }
  return out;
}
