/**
 * Gemini's documented `Schema` (https://ai.google.dev/api/caching#Schema, "a select subset of an OpenAPI 3.0 schema object"): the fields
 * a function declaration's `parameters` may hold at any level, and the rules between them that the API enforces (`properties` only on an
 * OBJECT, `items` required on an ARRAY and only there, `required` naming listed properties, `enum` on a STRING, the formats per type).
 * Written apart from the conversion in src/protocol/providers/gemini.ts, so a test holds one to the other.
 */
const FIELDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const FORMATS: Record<string, string[]> = { string: ['enum', 'date-time'], number: ['float', 'double'], integer: ['int32', 'int64'] };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every place in `schema` outside the subset, as "path: what". */
export function geminiSubsetProblems(schema: unknown, path = ''): string[] {
  if (!isObject(schema)) return [`${path || '/'}: not an object`];
  const problems: string[] = [];
  const type = schema.type;
  for (const key of Object.keys(schema)) if (!FIELDS.has(key)) problems.push(`${path}/${key}: not a Gemini Schema field`);
  if (type !== undefined && (typeof type !== 'string' || !TYPES.has(type))) problems.push(`${path}/type: ${JSON.stringify(type)}`);
  if (type === undefined && !Array.isArray(schema.anyOf)) problems.push(`${path}: neither a type nor anyOf`);
  if (schema.format !== undefined && !(FORMATS[type as string] ?? []).includes(schema.format as string))
    problems.push(`${path}/format: ${JSON.stringify(schema.format)} on ${String(type)}`);
  if (schema.properties !== undefined) {
    if (type !== 'object') problems.push(`${path}/properties: only allowed for OBJECT type`);
    if (!isObject(schema.properties) || Object.keys(schema.properties).length === 0)
      problems.push(`${path}/properties: should be non-empty`);
    else
      for (const [name, sub] of Object.entries(schema.properties))
        problems.push(...geminiSubsetProblems(sub, `${path}/properties/${name}`));
  }
  if (schema.required !== undefined) {
    const listed = isObject(schema.properties) ? schema.properties : {};
    if (!Array.isArray(schema.required) || schema.required.some((name) => !Object.hasOwn(listed, String(name))))
      problems.push(`${path}/required: names a property not defined`);
  }
  if (type === 'array' && !isObject(schema.items)) problems.push(`${path}/items: missing field`);
  if (schema.items !== undefined) {
    if (type !== 'array') problems.push(`${path}/items: only allowed for ARRAY type`);
    else problems.push(...geminiSubsetProblems(schema.items, `${path}/items`));
  }
  if (schema.enum !== undefined && (type !== 'string' || !Array.isArray(schema.enum) || !schema.enum.every((v) => typeof v === 'string')))
    problems.push(`${path}/enum: only strings on a STRING`);
  if (Array.isArray(schema.anyOf))
    schema.anyOf.forEach((branch, i) => problems.push(...geminiSubsetProblems(branch, `${path}/anyOf/${i}`)));
  return problems;
}
