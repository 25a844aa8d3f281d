import { sha256Hex } from '../../protocol/canonical.js';
import { isRecord, type JsonObject } from '../../protocol/json.js';
import type { Operation } from './document.js';
import { routeOf, type Route } from './route.js';
import { followRef } from './refs.js';
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
  /** The path sent, and the query parameters and headers its path key fixes (see route.ts). */
  route: Route;
  path: Placed[];
  query: Placed[];
  header: Placed[];
  /**
   * `merged`: the body object's properties are arguments of their own; `whole`: one argument is the body. A form body (urlencoded or
   * multipart) is always merged.
   */
  body?: { mediaType: string; required: boolean; form?: FormEncoding } & (
    | { kind: 'merged'; properties: Placed[] }
    | { kind: 'whole'; arg: string }
  );
}

/** How a form body is written: urlencoded (`deep` names its properties whose encoding is `style: deepObject`), or multipart. */
type FormEncoding = { kind: 'urlencoded'; deep: ReadonlySet<string> } | { kind: 'multipart' };

const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;
const FORM_MEDIA_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;
const MULTIPART_MEDIA_TYPE = /^multipart\/form-data\s*(?:;|$)/i;
// A part of one of these types is text a model can write; any other (image/png, application/octet-stream) is a file.
const TEXT_PART = /^(?:text\/|application\/(?:[\w.-]+\+)?json\s*(?:;|$))/i;
// RFC 9110 §9.3.1, §9.3.2: a GET or HEAD body has no defined meaning; an optional one is left off the tool.
const BODILESS = new Set(['get', 'head']);
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
 * The tool's arguments: path, query and header parameters (less those the path key fixes, route.ts), then the body's properties; on a clash
 * the first keeps the name and a later one takes its location (`query_id`, `body_id`). A JSON body that is not a plain object is one
 * argument, `body`. Throws a plain Error for what cannot be mapped (a cookie parameter, a body neither JSON nor form, a path parameter not
 * in the path, a header the gateway sets, an external `$ref`).
 */
export function planArguments(operation: Operation, walk: SchemaWalk): ArgumentPlan {
  const properties: JsonObject = {};
  const required: string[] = [];
  const route = routeOf(operation.path);
  const plan: ArgumentPlan = { parameters: {}, route, path: [], query: [], header: [] };
  for (const [name, value] of route.headers) {
    checkHeaderName(name);
    if (!HEADER_VALUE.test(value)) throw new Error(`its path fixes the header ${name} to ${JSON.stringify(value)}, which cannot be sent as a header value`);
  }
  // A parameter the path key fixes is sent with that value; the model does not fill it.
  const fixed = new Set([...route.query.map(([n]) => `query\n${n}`), ...route.headers.map(([n]) => `header\n${n.toLowerCase()}`)]);
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
      if (fixed.has(`${location}\n${location === 'header' ? name.toLowerCase() : name}`)) continue;
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
  for (const placeholder of route.path.matchAll(/\{([^}]+)\}/g)) {
    if (!plan.path.some((p) => p.name === placeholder[1])) throw new Error(`the path names {${placeholder[1]}}, which no path parameter declares`);
  }

  const body = planBody(operation, walk);
  if (body) {
    if (body.kind === 'object') {
      const placed = Object.entries(body.properties).map(([name, sub]): Placed => {
        const arg = claim(name, 'body');
        properties[arg] = sub;
        if (body.required && body.inBody.has(name)) required.push(arg);
        return { arg, name };
      });
      plan.body = { mediaType: body.mediaType, required: body.required, ...(body.form && { form: body.form }), kind: 'merged', properties: placed };
    } else {
      const arg = claim('body', 'request');
      properties[arg] = typeof body.schema.description === 'string' ? body.schema : { ...body.schema, description: 'The request body (JSON).' };
      if (body.required) required.push(arg);
      plan.body = { mediaType: body.mediaType, required: body.required, kind: 'whole', arg };
    }
  }
  plan.parameters = { type: 'object', properties, ...(required.length > 0 && { required }), additionalProperties: false };
  return plan;
}

type BodySchema = { mediaType: string; required: boolean } & (
  | { kind: 'object'; properties: JsonObject; inBody: ReadonlySet<string>; form?: FormEncoding }
  | { kind: 'other'; schema: JsonObject }
);

/**
 * The request body the tool sends: a JSON one (preferred), an urlencoded form, or a multipart form with no file field; a form's schema
 * must be a plain object. An optional body of a GET or HEAD is left off (the operation is served without it); any other body that cannot
 * be sent is a plain Error.
 */
function planBody(operation: Operation, walk: SchemaWalk): BodySchema | undefined {
  const body = operation.requestBody;
  const content = isRecord(body?.content) ? body.content : {};
  const types = Object.keys(content);
  const required = body?.required === true;
  if (!body || types.length === 0 || (!required && BODILESS.has(operation.method))) return undefined;
  const mediaType = [JSON_MEDIA_TYPE, FORM_MEDIA_TYPE, MULTIPART_MEDIA_TYPE].map((kind) => types.find((t) => kind.test(t))).find((t) => t !== undefined);
  // An optional body of another media type is not left off: documents often leave out `required`, and the operation's arguments may be in it.
  if (mediaType === undefined) {
    throw new Error(`its request body is ${types.join(', ')}; only application/json, +json, application/x-www-form-urlencoded and multipart/form-data bodies are sent`);
  }
  if (!HEADER_VALUE.test(mediaType)) throw new Error(`its request body's media type ${JSON.stringify(mediaType)} cannot be sent as a content-type header`);
  const media = isRecord(content[mediaType]) ? content[mediaType] : {};
  const schema = walk.convert(media.schema, true);
  const multipart = MULTIPART_MEDIA_TYPE.test(mediaType);
  const form = multipart || FORM_MEDIA_TYPE.test(mediaType);
  if (!isPlainObject(schema)) {
    if (!form) return { mediaType, required, kind: 'other', schema };
    throw new Error('its form body is not an object with properties, so it has no fields to send');
  }
  const inBody = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]).map(String) : []);
  const properties = schema.properties as JsonObject;
  const encoding = isRecord(media.encoding) ? media.encoding : {};
  if (!form) return { mediaType, required, kind: 'object', properties, inBody };
  if (multipart) {
    const files = fileFields(walk.document.root, media.schema, encoding);
    if (files.length > 0) throw new Error(`its multipart body has file fields (${files.join(', ')}); only text fields are sent`);
    return { mediaType, required, kind: 'object', properties, inBody, form: { kind: 'multipart' } };
  }
  const deep = new Set(Object.keys(encoding).filter((name) => isRecord(encoding[name]) && encoding[name].style === 'deepObject'));
  return { mediaType, required, kind: 'object', properties, inBody, form: { kind: 'urlencoded', deep } };
}

/** The properties of a multipart body that are files: binary (`format: binary`), or of a media type that is not text, by schema or encoding. */
function fileFields(root: JsonObject, schema: unknown, encoding: JsonObject): string[] {
  const isFile = (value: unknown, depth: number): boolean => {
    const sub = followRef(root, value);
    if (!isRecord(sub)) return false;
    if (sub.format === 'binary' || (typeof sub.contentMediaType === 'string' && !TEXT_PART.test(sub.contentMediaType))) return true;
    return depth < 2 && sub.items !== undefined && isFile(sub.items, depth + 1);
  };
  const object = followRef(root, schema);
  const properties = isRecord(object) && isRecord(object.properties) ? object.properties : {};
  return Object.keys(properties).filter((name) => {
    const part = encoding[name];
    const type = isRecord(part) && typeof part.contentType === 'string' ? part.contentType : undefined;
    return isFile(properties[name], 0) || (type !== undefined && !TEXT_PART.test(type));
  });
}
