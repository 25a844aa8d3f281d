import { parse as parseYaml } from 'yaml';
import { isRecord, type JsonObject } from '../../protocol/json.js';
import { followRef } from './refs.js';
import { DocumentSchemas } from './schema.js';
import { fromSwagger2 } from './swagger.js';

/** Where a document came from: the URL or absolute file path, for messages and for resolving relative server URLs. */
export interface SpecOrigin {
  location: string;
  isUrl: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** One operation of a dereferenced document, with its path item's parameters merged in. */
export interface Operation {
  method: (typeof METHODS)[number];
  /** The path as the document writes it, with `{param}` placeholders. */
  path: string;
  operationId?: string;
  summary?: string;
  description?: string;
  /** Path-item and operation parameters; the operation's win for the same name and location. */
  parameters: JsonObject[];
  requestBody?: JsonObject;
  /** Its own `servers[0].url` (the operation's, else its path item's), variables at their defaults; absolute when it could be resolved. */
  server?: string;
  /** Why a part of it could not be read (a `$ref` that points nowhere): the operation is left out with this. */
  unreadable?: string;
}

/** What of an operation its tool keeps once its arguments are planned. */
export type OperationHead = Omit<Operation, 'parameters' | 'requestBody'>;

/** A document ready to become tools. */
interface OpenApiDocument {
  version: '3.0' | '3.1';
  /** `servers[0].url` with its variables at their defaults, relative URLs resolved; undefined when the document has none. */
  serverUrl?: string;
  operations: Operation[];
  /** Its schemas, converted on demand, each once. */
  schemas: DocumentSchemas;
}

/** The document as data: JSON when it parses as JSON, else YAML (aliases bounded, as for the config file). */
function parseDocument(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    try {
      // `logLevel: 'error'`: a YAML warning would go to stderr, outside the JSON log; only errors matter here.
      return parseYaml(text, { maxAliasCount: 100, logLevel: 'error' }) as unknown;
    } catch (err) {
      throw new Error(`is neither JSON nor YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  }
}

/** `servers[0].url` with its variables at their defaults, resolved against the document's URL when it is relative and that is known. */
function filledServerUrl(servers: unknown, spec: SpecOrigin): string | undefined {
  const first = Array.isArray(servers) ? (servers[0] as unknown) : undefined;
  if (!isRecord(first) || typeof first.url !== 'string') return undefined;
  const variables = isRecord(first.variables) ? first.variables : {};
  const filled = first.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isRecord(variable) && typeof variable.default === 'string' ? variable.default : whole;
  });
  if (/^https?:\/\//i.test(filled) || !spec.isUrl || !URL.canParse(filled, spec.location)) return filled;
  return new URL(filled, spec.location).href;
}

/** The document's server as an absolute URL; a relative one read from a file has no place to be relative to. */
function serverUrlOf(servers: unknown, spec: SpecOrigin): string | undefined {
  const filled = filledServerUrl(servers, spec);
  return filled !== undefined && /^https?:\/\//i.test(filled) ? filled : undefined;
}

function mergedParameters(root: JsonObject, shared: unknown, own: unknown): JsonObject[] {
  const byKey = new Map<string, JsonObject>();
  for (const list of [followRef(root, shared), followRef(root, own)]) {
    for (const entry of Array.isArray(list) ? (list as unknown[]) : []) {
      const parameter = followRef(root, entry);
      if (isRecord(parameter)) byKey.set(`${String(parameter.in)}\n${String(parameter.name)}`, parameter);
    }
  }
  return [...byKey.values()];
}

/** The operations of one path item, its own `$ref` followed; an operation part of which cannot be read carries why. */
function operationsOf(root: JsonObject, path: string, raw: unknown, spec: SpecOrigin): Operation[] {
  let item: unknown;
  try {
    item = followRef(root, raw);
  } catch (err) {
    return [{ method: 'get', path, parameters: [], unreadable: `its path item ${(err as Error).message.replace(/^its /, '')}` }];
  }
  if (!isRecord(item)) return [];
  const operations: Operation[] = [];
  for (const method of METHODS) {
    const op = item[method];
    if (!isRecord(op)) continue;
    const operation: Operation = { method, path, parameters: [] };
    if (typeof op.operationId === 'string' && op.operationId !== '') operation.operationId = op.operationId;
    const summary = typeof op.summary === 'string' ? op.summary : typeof item.summary === 'string' ? item.summary : undefined;
    const description = typeof op.description === 'string' ? op.description : typeof item.description === 'string' ? item.description : undefined;
    if (summary) operation.summary = summary;
    if (description) operation.description = description;
    const server = filledServerUrl(op.servers, spec) ?? filledServerUrl(item.servers, spec);
    if (server !== undefined) operation.server = server;
    try {
      operation.parameters = mergedParameters(root, item.parameters, op.parameters);
      const body = followRef(root, op.requestBody);
      if (isRecord(body)) operation.requestBody = body;
    } catch (err) {
      operation.unreadable = (err as Error).message;
    }
    operations.push(operation);
  }
  return operations;
}

/**
 * Parse the document (a Swagger 2.0 one converted first, swagger.ts) and list its operations. Internal `$ref`s of parameters, bodies and
 * path items are followed, and schemas named as `$defs` (schema.ts), never copied out; external ones are never followed, so only the
 * guarded fetch reads anything. A `$ref` that points nowhere costs the operation that holds it. Throws a plain Error when the document as
 * a whole cannot be read.
 */
export async function readDocument(text: string, spec: SpecOrigin): Promise<OpenApiDocument> {
  const parsed = parseDocument(text);
  if (!isRecord(parsed)) throw new Error('is not an OpenAPI document: the top level must be an object');
  const raw = typeof parsed.swagger === 'string' ? await fromSwagger2(parsed) : parsed;
  const version = typeof raw.openapi === 'string' ? /^3\.[01](?:\.|$)/.exec(raw.openapi)?.[0].slice(0, 3) : undefined;
  if (version !== '3.0' && version !== '3.1') {
    throw new Error(`is not an OpenAPI 3.0 or 3.1 document (openapi: ${JSON.stringify(raw.openapi ?? null)})`);
  }
  const operations = Object.entries(isRecord(raw.paths) ? raw.paths : {}).flatMap(([path, item]) => operationsOf(raw, path, item, spec));
  const schemas = new DocumentSchemas(raw, version);
  const serverUrl = serverUrlOf(raw.servers, spec);
  return serverUrl === undefined ? { version, operations, schemas } : { version, serverUrl, operations, schemas };
}
