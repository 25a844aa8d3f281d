import { isRecord, type JsonObject } from '../../protocol/json.js';
import type { Operation } from './document.js';
import { toJsonSchema } from './schema.js';

/** One tool argument and the request part it fills. */
interface Placed {
  arg: string;
  /** The name in the request: the parameter's, or the body property's. */
  name: string;
}

/** Where each argument of an operation's tool goes, and the tool's parameters schema. */
export interface ArgumentPlan {
  parameters: JsonObject;
  path: Placed[];
  query: Placed[];
  header: Placed[];
  /** `merged`: the body object's properties are arguments of their own; `whole`: one argument is the body. */
  body?: { mediaType: string; required: boolean } & ({ kind: 'merged'; properties: Placed[] } | { kind: 'whole'; arg: string });
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;
// OpenAPI 3.x, Parameter Object: header parameters by these names "SHALL be ignored" (the request sets them).
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
const LOCATIONS = ['path', 'query', 'header'] as const;

/** A schema the body's properties can be spread from: a plain object with named properties (3.0's nullable one too). */
function isPlainObject(schema: JsonObject): boolean {
  const type = schema.type;
  const typed = type === undefined || type === 'object' || (Array.isArray(type) && type.includes('object') && type.every((t) => t === 'object' || t === 'null'));
  return typed && isRecord(schema.properties) && !['allOf', 'anyOf', 'oneOf', 'not', 'if'].some((k) => k in schema);
}

/**
 * The tool's arguments: every path, query and header parameter, then the
 * JSON body's properties, each under its own name. Where names clash
 * (OpenAPI allows `id` in the path and in the query, and a body property
 * `id` beside them) the first to claim a name keeps it, in the order path,
 * query, header, body, and a later one is renamed with its location:
 * `query_id`, `header_id`, `body_id`. A body that is not a plain object
 * (an array, a oneOf, a string) is one argument, `body`. Throws a plain
 * Error for what cannot be mapped: a cookie parameter, a body with no JSON
 * media type, a parameter that is not in the path it names.
 */
export function planArguments(operation: Operation, seen: WeakMap<object, JsonObject>): ArgumentPlan {
  const properties: JsonObject = {};
  const required: string[] = [];
  const plan: ArgumentPlan = { parameters: {}, path: [], query: [], header: [] };
  const claim = (name: string, location: string): string => {
    const arg = Object.hasOwn(properties, name) ? `${location}_${name}` : name;
    if (Object.hasOwn(properties, arg)) throw new Error(`the argument names "${name}" and "${arg}" are both taken; the parameters clash`);
    return arg;
  };
  for (const location of LOCATIONS) {
    for (const parameter of operation.parameters.filter((p) => p.in === location)) {
      const name = String(parameter.name);
      if (location === 'header' && IGNORED_HEADERS.has(name.toLowerCase())) continue;
      if (!isRecord(parameter.schema)) throw new Error(`parameter "${name}" has no schema (a content map is not supported)`);
      const arg = claim(name, location);
      const schema = { ...toJsonSchema(parameter.schema, seen) };
      if (typeof parameter.description === 'string' && schema.description === undefined) schema.description = parameter.description;
      properties[arg] = schema;
      if (location === 'path' || parameter.required === true) required.push(arg);
      plan[location].push({ arg, name });
    }
  }
  const cookies = operation.parameters.filter((p) => p.in === 'cookie').map((p) => String(p.name));
  if (cookies.length > 0) throw new Error(`cookie parameters (${cookies.join(', ')}) are not supported`);
  for (const placeholder of operation.path.matchAll(/\{([^}]+)\}/g)) {
    if (!plan.path.some((p) => p.name === placeholder[1])) throw new Error(`the path names {${placeholder[1]}}, which no path parameter declares`);
  }

  const body = operation.requestBody;
  const content = isRecord(body?.content) ? body.content : {};
  const types = Object.keys(content);
  if (body && types.length > 0) {
    const mediaType = types.find((t) => JSON_MEDIA_TYPE.test(t));
    if (mediaType === undefined) throw new Error(`its request body is ${types.join(', ')}; only application/json and +json bodies are sent`);
    const media = content[mediaType];
    const schema = toJsonSchema(isRecord(media) ? media.schema : undefined, seen);
    const bodyRequired = body.required === true;
    if (isPlainObject(schema)) {
      const placed: Placed[] = [];
      const inBody = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]).map(String) : []);
      for (const [name, sub] of Object.entries(schema.properties as JsonObject)) {
        const arg = claim(name, 'body');
        properties[arg] = sub;
        if (bodyRequired && inBody.has(name)) required.push(arg);
        placed.push({ arg, name });
      }
      plan.body = { mediaType, required: bodyRequired, kind: 'merged', properties: placed };
    } else {
      const arg = claim('body', 'request');
      properties[arg] = typeof schema.description === 'string' ? schema : { ...schema, description: 'The request body (JSON).' };
      if (bodyRequired) required.push(arg);
      plan.body = { mediaType, required: bodyRequired, kind: 'whole', arg };
    }
  }
  plan.parameters = { type: 'object', properties, ...(required.length > 0 && { required }), additionalProperties: false };
  return plan;
}
