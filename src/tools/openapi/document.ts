import { dereference } from '@readme/openapi-parser';
import { isRecord, type JsonObject } from '../../protocol/json.js';
import type { SpecText } from './fetch-spec.js';

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
}

/** A document ready to become tools. */
interface OpenApiDocument {
  version: '3.0' | '3.1';
  /** `servers[0].url` with its variables at their defaults, relative URLs resolved; undefined when the document has none. */
  serverUrl?: string;
  operations: Operation[];
}

/** `servers[0].url` with its variables at their defaults, resolved against the document's URL when it is relative and that is known. */
function filledServerUrl(servers: unknown, spec: SpecText): string | undefined {
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
function serverUrlOf(servers: unknown, spec: SpecText): string | undefined {
  const filled = filledServerUrl(servers, spec);
  return filled !== undefined && /^https?:\/\//i.test(filled) ? filled : undefined;
}

function mergedParameters(shared: unknown, own: unknown): JsonObject[] {
  const byKey = new Map<string, JsonObject>();
  for (const list of [shared, own]) {
    for (const parameter of Array.isArray(list) ? (list as unknown[]) : []) {
      if (isRecord(parameter)) byKey.set(`${String(parameter.in)}\n${String(parameter.name)}`, parameter);
    }
  }
  return [...byKey.values()];
}

/**
 * Dereference the document: every internal `$ref` replaced (one that points nowhere fails it), external ones never followed, so only the
 * guarded fetch reads anything; a recursive schema keeps its `$ref` (its operations are left out, see arguments.ts).
 */
export async function readDocument(spec: SpecText, timeoutMs: number): Promise<OpenApiDocument> {
  const raw = spec.document;
  if (!isRecord(raw)) throw new Error('is not an OpenAPI document: the top level must be an object');
  if (typeof raw.swagger === 'string') throw new Error(`is Swagger ${raw.swagger}; only OpenAPI 3.0 and 3.1 are read (convert it first, e.g. with swagger2openapi)`);
  const version = typeof raw.openapi === 'string' ? /^3\.[01](?:\.|$)/.exec(raw.openapi)?.[0].slice(0, 3) : undefined;
  if (version !== '3.0' && version !== '3.1') {
    throw new Error(`is not an OpenAPI 3.0 or 3.1 document (openapi: ${JSON.stringify(raw.openapi ?? null)})`);
  }
  let document: JsonObject;
  try {
    document = (await dereference(raw as never, {
      resolve: { external: false },
      dereference: { circular: 'ignore' },
      timeoutMs,
    })) as unknown as JsonObject;
  } catch (err) {
    throw new Error(`could not be dereferenced: ${(err as Error).message.split('\n')[0]}`);
  }
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(isRecord(document.paths) ? document.paths : {})) {
    if (!isRecord(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isRecord(op)) continue;
      const operation: Operation = { method, path, parameters: mergedParameters(item.parameters, op.parameters) };
      if (typeof op.operationId === 'string' && op.operationId !== '') operation.operationId = op.operationId;
      const summary = typeof op.summary === 'string' ? op.summary : typeof item.summary === 'string' ? item.summary : undefined;
      const description = typeof op.description === 'string' ? op.description : typeof item.description === 'string' ? item.description : undefined;
      if (summary) operation.summary = summary;
      if (description) operation.description = description;
      if (isRecord(op.requestBody)) operation.requestBody = op.requestBody;
      const server = filledServerUrl(op.servers, spec) ?? filledServerUrl(item.servers, spec);
      if (server !== undefined) operation.server = server;
      operations.push(operation);
    }
  }
  const serverUrl = serverUrlOf(document.servers, spec);
  return serverUrl === undefined ? { version, operations } : { version, serverUrl, operations };
}
