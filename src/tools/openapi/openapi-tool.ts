import { sha256Hex } from '../../protocol/canonical.js';
import { GatewayError } from '../../protocol/errors.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_RETRIES } from '../http/http-tool.js';
import { createExchange, type HttpMethod } from '../http/exchange.js';
import type { SecretTemplates } from '../http/secrets.js';
import { appendQuery, compileUrlTemplate } from '../http/template.js';
import type { Dispatcher } from 'undici';
import type { OpenApiSourceConfig } from '../../config/schema.js';
import { settingsOf } from '../settings.js';
import type { Tool } from '../tool.js';
import { HEADER_VALUE, type ArgumentPlan } from './arguments.js';
import type { OperationHead } from './document.js';
import { formBody, multipartBody } from './form.js';

const NAME_MAX = 64;
// Tool descriptions are in the model's context on every step: a long operation description is cut here.
const DESCRIPTION_MAX = 1024;
const SAFE_METHODS = new Set<HttpMethod>(['GET', 'HEAD', 'OPTIONS']);
const IDEMPOTENT_METHODS = new Set<HttpMethod>(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// A path segment of "." or "..", its dots percent-encoded (%2e) or not, between separators as some upstream reads them: `/`, `\` and
// their encodings (%2f, %5c, which some servers decode before normalising), and after it also `;` (Tomcat and Spring drop a segment's
// `;` parameters, so `/..;/` is `/../`), `?`, `#` or the end.
const DOT_SEGMENT = /(?:^|[/\\]|%2f|%5c)(?:\.|%2e){1,2}(?:[/\\;?#]|%2f|%5c|%3b|$)/i;

/** `prefix` + operationId with characters a provider refuses made `_`; past 64 characters, its first 55, `_` and 8 hex of its sha256. */
export function toolNameOf(prefix: string, operationId: string): string {
  const name = `${prefix}${operationId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  if (name.length <= NAME_MAX) return name;
  return `${name.slice(0, NAME_MAX - 9)}_${sha256Hex(name).slice(0, 8)}`;
}

function describe(operation: OperationHead): string {
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
  /** Where the operation's path is joined: the source's base URL, or the operation's own server at its origin. */
  baseUrl: string;
  /** The source's origin (of base_url, else of the document's server): the only one its calls go to. */
  origin: string;
  /** The source's configured headers, filled from each call's credentials. */
  headers: SecretTemplates;
  dispatcher: Dispatcher;
}

/**
 * The HTTP tool of one operation: path, query, header (configured ones win) and body arguments, sent with the HTTP tools' exchange to the
 * source's origin only. Throws a plain Error for TRACE, a path that would name another origin (`:8080/x`, `@host/x`) or leave the base path.
 */
export function createOperationTool(name: string, operation: OperationHead, plan: ArgumentPlan, deps: OperationToolDeps): Tool {
  const method = operation.method.toUpperCase();
  if (method === 'TRACE') throw new Error('TRACE is not sent by HTTP tools');
  const httpMethod = method as HttpMethod;
  const route = plan.route;
  if (!route.path.startsWith('/')) throw new Error('its path does not start with "/": joined to the base URL it could name another host or port');
  // The base URL's path is a boundary: a normalising upstream would serve /api/v1/../../x as /x.
  if (DOT_SEGMENT.test(route.path)) throw new Error(`its path holds a "." or ".." segment: it could leave the base URL's path`);
  const alias = new Map(plan.path.map((p, i) => [p.arg, PLACEHOLDER_NAME.test(p.arg) ? p.arg : `_p${i}`]));
  const path = route.path.replace(/\{([^}]+)\}/g, (_, param: string) => `{${alias.get(plan.path.find((p) => p.name === param)!.arg)!}}`);
  const url = compileUrlTemplate(`${deps.baseUrl.replace(/\/+$/, '')}${path}`);
  if (url.origin !== deps.origin) throw new Error(`its URL would go to ${url.origin}, not ${deps.origin} where the source's calls go`);
  const { source } = deps;
  const exchange = createExchange({
    origin: deps.origin,
    dispatcher: deps.dispatcher,
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
      const query = Object.fromEntries([...route.query, ...plan.query.map((p) => [p.name, args[p.arg]] as const)]);
      const headers: Record<string, string> = Object.fromEntries(route.headers.map(([name, value]) => [name.toLowerCase(), value]));
      for (const p of plan.header) if (args[p.arg] !== undefined && args[p.arg] !== null) headers[p.name.toLowerCase()] = headerValue(p.arg, args[p.arg]);
      let sent: { text: string; type: string } | undefined;
      if (body?.kind === 'whole' && args[body.arg] !== undefined) sent = { text: JSON.stringify(args[body.arg]), type: body.mediaType };
      else if (body?.kind === 'merged') {
        const present = body.properties.filter((p) => args[p.arg] !== undefined).map((p) => [p.name, args[p.arg]] as const);
        if (present.length > 0 || body.required) {
          if (body.form?.kind === 'multipart') sent = multipartBody(present);
          else sent = { text: body.form ? formBody(present, body.form.deep) : JSON.stringify(Object.fromEntries(present)), type: body.mediaType };
        }
      }
      const configured = await deps.headers.fill(ctx.credentials);
      return exchange(
        {
          path: appendQuery(expanded, query),
          method: httpMethod,
          headers: { ...headers, ...configured.headers },
          body: sent,
          secrets: configured.secrets,
        },
        ctx,
      );
    },
  };
}
