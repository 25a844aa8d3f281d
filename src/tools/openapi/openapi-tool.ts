import { sha256Hex } from '../../protocol/canonical.js';
import { GatewayError } from '../../protocol/errors.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_RETRIES } from '../http/http-tool.js';
import { createExchange, type HttpMethod } from '../http/exchange.js';
import type { ResolvedHeaders } from '../http/secrets.js';
import { appendQuery, compileUrlTemplate } from '../http/template.js';
import type { Dispatcher } from 'undici';
import type { OpenApiSourceConfig } from '../../config/schema.js';
import { settingsOf } from '../settings.js';
import type { Tool } from '../tool.js';
import type { ArgumentPlan } from './arguments.js';
import type { Operation } from './document.js';

const NAME_MAX = 64;
// Tool descriptions are in the model's context on every step: a long operation description is cut here.
const DESCRIPTION_MAX = 1024;
const SAFE_METHODS = new Set<HttpMethod>(['GET', 'HEAD', 'OPTIONS']);
const IDEMPOTENT_METHODS = new Set<HttpMethod>(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Visible ASCII, space and tab: anything else would break the header or be read differently by the upstream.
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/**
 * The tool name of an operation: `prefix` + its operationId with every
 * character a provider refuses made `_` (`repos/get-content` →
 * `repos_get-content`). A name over 64 characters keeps its first 55 and
 * ends in `_` and 8 hex digits of its full name's sha256, so two long names
 * that share a start still differ.
 */
export function toolNameOf(prefix: string, operationId: string): string {
  const name = `${prefix}${operationId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  if (name.length <= NAME_MAX) return name;
  return `${name.slice(0, NAME_MAX - 9)}_${sha256Hex(name).slice(0, 8)}`;
}

function describe(operation: Operation): string {
  const text = [operation.summary, operation.description].filter((t): t is string => !!t?.trim()).map((t) => t.trim());
  if (text.length === 2 && text[1]!.startsWith(text[0]!)) text.shift();
  const joined = text.join('\n\n') || `${operation.method.toUpperCase()} ${operation.path}`;
  return joined.length <= DESCRIPTION_MAX ? joined : `${joined.slice(0, DESCRIPTION_MAX - 1)}…`;
}

function headerValue(arg: string, value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (!HEADER_VALUE.test(text)) {
    const message = 'may hold only visible ASCII, spaces and tabs in a header';
    throw new GatewayError('INVALID_ARGS', { message: `Argument "${arg}" ${message}.`, details: { errors: [{ path: `/${arg}`, message }] } });
  }
  return text;
}

interface OperationToolDeps {
  source: OpenApiSourceConfig;
  /** base_url, else the document's first server URL. */
  baseUrl: string;
  headers: ResolvedHeaders;
  dispatcher: Dispatcher;
}

/**
 * The HTTP tool of one operation: path arguments fill the URL template
 * (percent-encoded, never the origin), query arguments the query string,
 * header arguments the headers (the source's configured headers win), and
 * body arguments the JSON body; sent with the HTTP tools' exchange. Throws a
 * plain Error when the operation cannot be one (e.g. TRACE).
 */
export function createOperationTool(name: string, operation: Operation, plan: ArgumentPlan, deps: OperationToolDeps): Tool {
  const method = operation.method.toUpperCase();
  if (method === 'TRACE') throw new Error('TRACE is not sent by HTTP tools');
  const httpMethod = method as HttpMethod;
  const alias = new Map(plan.path.map((p, i) => [p.arg, PLACEHOLDER_NAME.test(p.arg) ? p.arg : `_p${i}`]));
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, param: string) => `{${alias.get(plan.path.find((p) => p.name === param)!.arg)!}}`);
  const url = compileUrlTemplate(`${deps.baseUrl.replace(/\/+$/, '')}${path}`);
  const { source } = deps;
  const exchange = createExchange({
    dispatcher: deps.dispatcher,
    headers: deps.headers,
    retries: IDEMPOTENT_METHODS.has(httpMethod) ? (source.retries ?? DEFAULT_RETRIES) : 0,
    maxResponseBytes: source.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    followRedirects: source.follow_redirects ?? 0,
  });
  const body = plan.body;

  return {
    name,
    description: describe(operation),
    parameters: plan.parameters,
    concurrencySafe: source.concurrency_safe ?? SAFE_METHODS.has(httpMethod),
    ...settingsOf(source),
    async run(args, ctx) {
      const expanded = url.expand(Object.fromEntries(plan.path.map((p) => [alias.get(p.arg)!, args[p.arg]])));
      const query = Object.fromEntries(plan.query.map((p) => [p.name, args[p.arg]]));
      const headers: Record<string, string> = {};
      for (const p of plan.header) if (args[p.arg] !== undefined && args[p.arg] !== null) headers[p.name.toLowerCase()] = headerValue(p.arg, args[p.arg]);
      let payload: unknown;
      if (body?.kind === 'whole') payload = args[body.arg];
      else if (body?.kind === 'merged') {
        const present = body.properties.filter((p) => args[p.arg] !== undefined);
        if (present.length > 0 || body.required) payload = Object.fromEntries(present.map((p) => [p.name, args[p.arg]]));
      }
      if (payload !== undefined && body) headers['content-type'] = body.mediaType;
      return exchange(
        {
          origin: url.origin,
          path: appendQuery(expanded, query),
          method: httpMethod,
          headers: { ...headers, ...deps.headers.headers },
          body: payload === undefined ? undefined : JSON.stringify(payload),
        },
        ctx,
      );
    },
  };
}
