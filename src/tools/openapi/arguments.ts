import { sha256Hex } from '../../protocol/canonical.js';
import { isRecord, type JsonObject } from '../../protocol/json.js';
import type { Operation } from './document.js';
import type { SchemaWalk } from './schema.js';

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
// Headers that name the host or frame the message (and hop-by-hop ones): the gateway and its HTTP client set them, a model never does.
const FRAMING_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer']);
// RFC 9110 §5.1: a field name is a token.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII, space and tab: anything else would break a header or be read differently by the upstream. */
export const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
const LOCATIONS = ['path', 'query', 'header'] as const;
// Anthropic's rule for a property key, the narrowest of the providers'.
const ARGUMENT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The argument name of a wire name: itself when every provider takes it as a property key; else its other characters made `_` and, past
 * 64 characters, its first 55, `_` and 8 hex of its sha256. `__proto__` is renamed `_proto_`: a JavaScript object cannot hold it as a key
 * by assignment, so the argument would be refused as unknown. The request still carries the wire name.
 */
function argumentName(name: string): string {
  if (name === '__proto__') return '_proto_';
  if (ARGUMENT_NAME.test(name)) return name;
  const safe = name.replace(/[^A-Za-z0-9_.-]/g, '_') || '_';
  return safe.length <= 64 ? safe : `${safe.slice(0, 55)}_${sha256Hex(name).slice(0, 8)}`;
}

/** A schema the body's properties can be spread from: a plain object with named properties (3.0's nullable one too). */
function isPlainObject(schema: JsonObject): boolean {
  const type = schema.type;
  const typed = type === undefined || type === 'object' || (Array.isArray(type) && type.includes('object') && type.every((t) => t === 'object' || t === 'null'));
  return typed && isRecord(schema.properties) && !['allOf', 'anyOf', 'oneOf', 'not', 'if'].some((k) => k in schema);
}

/** A header parameter the model may fill: a valid name, and none the gateway sets; else a plain Error (the operation is left out). */
function checkHeaderName(name: string): void {
  if (!HEADER_NAME.test(name)) throw new Error(`its header parameter ${JSON.stringify(name)} is not a valid header name`);
  const lower = name.toLowerCase();
  if (FRAMING_HEADERS.has(lower) || lower.startsWith('proxy-')) {
    throw new Error(`its header parameter "${name}" names a header only the gateway sets (Host, framing and hop-by-hop headers, Proxy-*); a model never sets it`);
  }
}

/**
 * The tool's arguments: path, query and header parameters, then the JSON body's properties; on a clash the first keeps the name and a later
 * one takes its location (`query_id`, `body_id`). A body that is not a plain object is one argument, `body`. Throws a plain Error for what
 * cannot be mapped (a cookie parameter, a non-JSON body, a path parameter not in the path, a header the gateway sets, an external `$ref`).
 */
export function planArguments(operation: Operation, walk: SchemaWalk): ArgumentPlan {
  const properties: JsonObject = {};
  const required: string[] = [];
  const plan: ArgumentPlan = { parameters: {}, path: [], query: [], header: [] };
  const claim = (name: string, location: string): string => {
    const own = argumentName(name);
    const arg = Object.hasOwn(properties, own) ? argumentName(`${location}_${name}`) : own;
    if (Object.hasOwn(properties, arg)) throw new Error(`the argument names "${name}" and "${arg}" are both taken; the parameters clash`);
    return arg;
  };
  // External references are not followed (document.ts): a parameter or body still a $ref would be dropped unseen.
  const external = [...operation.parameters, operation.requestBody ?? {}].map((part) => part.$ref).filter((ref) => typeof ref === 'string');
  if (external.length > 0) {
    throw new Error(`its $ref ${external.map((ref) => JSON.stringify(ref)).join(', ')} points outside the document; external references are not followed (bundle the document into one)`);
  }
  for (const location of LOCATIONS) {
    for (const parameter of operation.parameters.filter((p) => p.in === location)) {
      const name = String(parameter.name);
      if (location === 'header' && IGNORED_HEADERS.has(name.toLowerCase())) continue;
      if (location === 'header') checkHeaderName(name);
      if (!isRecord(parameter.schema)) throw new Error(`parameter "${name}" has no schema (a content map is not supported)`);
      const arg = claim(name, location);
      const schema = { ...walk.convert(parameter.schema) };
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
    if (!HEADER_VALUE.test(mediaType)) throw new Error(`its request body's media type ${JSON.stringify(mediaType)} cannot be sent as a content-type header`);
    const media = content[mediaType];
    const schema = walk.convert(isRecord(media) ? media.schema : undefined, true);
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
