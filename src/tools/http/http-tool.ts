import type { ToolConfig } from '../../config/schema.js';
import { settingsOf } from '../settings.js';
import type { Tool } from '../tool.js';
import type { HttpDispatchers } from './dispatcher.js';
import { createExchange } from './exchange.js';
import type { Sleep } from './retry.js';
import { resolveHeaders, type ResolvedHeaders } from './secrets.js';
import { appendQuery, compileUrlTemplate, type UrlTemplate } from './template.js';

interface HttpToolDeps {
  /** Shared pools; the tool's `allow_private_network` picks one. */
  dispatchers: HttpDispatchers;
  /** Source of `${VAR}` in header values, read once at creation. */
  env: NodeJS.ProcessEnv;
  /** Waits between retries. */
  sleep?: Sleep;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 1_048_576;
export const DEFAULT_RETRIES = 2;

/** Start-up checks; a plain Error listing every problem of the tool. */
function compile(config: ToolConfig, env: NodeJS.ProcessEnv): { url: UrlTemplate; headers: ResolvedHeaders } {
  const problems: string[] = [];
  let url: UrlTemplate | undefined;
  let headers: ResolvedHeaders | undefined;
  try {
    url = compileUrlTemplate(config.http.url);
    const properties = (config.parameters as { properties?: Record<string, unknown> }).properties ?? {};
    for (const name of url.placeholders) {
      if (!Object.hasOwn(properties, name)) problems.push(`url uses {${name}}, which is not a property in parameters`);
    }
  } catch (err) {
    problems.push((err as Error).message);
  }
  try {
    headers = resolveHeaders(config.http.headers ?? {}, env);
  } catch (err) {
    problems.push((err as Error).message);
  }
  if (!url || !headers || problems.length > 0) throw new Error(problems.join('; '));
  return { url, headers };
}

/**
 * An HTTP tool from its config entry (`tools:` in the config file). Throws a plain Error at
 * creation — a start-up problem — naming every fault: a URL template that
 * could let an argument change the origin, a placeholder missing from the
 * parameters, an unset environment variable.
 */
export function createHttpTool(config: ToolConfig, deps: HttpToolDeps): Tool {
  const spec = config.http;
  const { url, headers } = compile(config, deps.env);
  const sendsBody = spec.method === 'POST' || spec.method === 'PUT' || spec.method === 'PATCH';
  // A POST or PATCH may have taken effect even when the answer was an error: repeat it only when the tool says so.
  const idempotent = spec.idempotent ?? (spec.method === 'GET' || spec.method === 'PUT' || spec.method === 'DELETE');
  const exchange = createExchange({
    dispatcher: spec.allow_private_network ? deps.dispatchers.open : deps.dispatchers.guarded,
    headers,
    retries: idempotent ? (spec.retries ?? DEFAULT_RETRIES) : 0,
    maxResponseBytes: spec.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    followRedirects: spec.follow_redirects ?? 0,
    ...(deps.sleep && { sleep: deps.sleep }),
  });

  return {
    name: config.name,
    description: config.description,
    parameters: config.parameters,
    concurrencySafe: config.concurrency_safe ?? false,
    ...settingsOf(config),
    async run(args, ctx) {
      const expanded = url.expand(args);
      const rest = Object.fromEntries(Object.entries(args).filter(([name]) => !url.placeholders.has(name)));
      return exchange(
        {
          origin: url.origin,
          path: sendsBody ? expanded : appendQuery(expanded, rest),
          method: spec.method,
          headers: sendsBody ? { 'content-type': 'application/json', ...headers.headers } : headers.headers,
          body: sendsBody ? JSON.stringify(rest) : undefined,
        },
        ctx,
      );
    },
  };
}
