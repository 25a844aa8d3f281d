import type { ToolConfig } from '../../config/schema.js';
import type { CredentialProvider } from '../credentials.js';
import { settingsOf } from '../settings.js';
import type { JsonSchema, Tool } from '../tool.js';
import { isRecord } from '../../protocol/json.js';
import type { HttpDispatchers } from './dispatcher.js';
import { createExchange } from './exchange.js';
import type { Sleep } from './retry.js';
import { headerTemplates, type SecretTemplates } from './secrets.js';
import { appendQuery, compileUrlTemplate, type UrlTemplate } from './template.js';

interface HttpToolDeps {
  /** Shared pools; the tool's `allow_private_network` picks one. */
  dispatchers: HttpDispatchers;
  /** Checks at creation that every `${NAME}` in the headers can be answered; each call asks its context's credentials. */
  credentials: CredentialProvider;
  sleep?: Sleep;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 1_048_576;
export const DEFAULT_RETRIES = 2;

const BRANCHES = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * The parameters as validated and listed: an undeclared argument is INVALID_ARGS, never sent, unless `additionalProperties` is stated; so
 * at every level that lists `properties`. A property declared only inside allOf/anyOf/oneOf is a start-up problem naming where.
 */
function declaredOnly(schema: JsonSchema, at: string, problems: string[]): JsonSchema {
  const out: JsonSchema = { ...schema };
  const own = isRecord(schema.properties) ? schema.properties : undefined;
  if (own)
    out.properties = Object.fromEntries(
      Object.entries(own).map(([name, sub]) => [name, isRecord(sub) ? declaredOnly(sub, `${at}.${name}`, problems) : sub]),
    );
  if (isRecord(schema.items)) out.items = declaredOnly(schema.items, `${at}[]`, problems);
  if (Object.hasOwn(schema, 'additionalProperties') || (at !== '' && !own)) return out;
  const hidden = BRANCHES.flatMap((keyword) => (Array.isArray(schema[keyword]) ? (schema[keyword] as unknown[]) : []))
    .flatMap((branch) => (isRecord(branch) && isRecord(branch.properties) ? Object.keys(branch.properties) : []))
    .filter((name) => !own || !Object.hasOwn(own, name));
  if (hidden.length > 0) {
    problems.push(
      `parameters${at} declare ${[...new Set(hidden)].map((n) => `"${n}"`).join(', ')} only inside allOf/anyOf/oneOf; list them under properties too, or set additionalProperties: true`,
    );
  }
  return { ...out, additionalProperties: false };
}

/** Start-up checks; a plain Error listing every problem of the tool. */
function compile(
  config: ToolConfig,
  credentials: CredentialProvider,
): { url: UrlTemplate; headers: SecretTemplates; parameters: JsonSchema } {
  const problems: string[] = [];
  const parameters = declaredOnly(config.parameters, '', problems);
  let url: UrlTemplate | undefined;
  try {
    url = compileUrlTemplate(config.http.url);
    const properties = (config.parameters as { properties?: Record<string, unknown> }).properties ?? {};
    for (const name of url.placeholders) {
      if (!Object.hasOwn(properties, name)) problems.push(`url uses {${name}}, which is not a property in parameters`);
    }
  } catch (err) {
    problems.push((err as Error).message);
  }
  const headers = headerTemplates(config.http.headers ?? {}, config.auth);
  problems.push(...headers.problems(credentials));
  if (!url || problems.length > 0) throw new Error(problems.join('; '));
  return { url, headers, parameters };
}

/** An HTTP tool from its `tools:` entry; throws a plain Error naming every fault of it (a start-up problem). */
export function createHttpTool(config: ToolConfig, deps: HttpToolDeps): Tool {
  const spec = config.http;
  const { url, headers, parameters } = compile(config, deps.credentials);
  const sendsBody = spec.method === 'POST' || spec.method === 'PUT' || spec.method === 'PATCH';
  // A POST or PATCH may have taken effect even when the answer was an error: repeat it only when the tool says so.
  const idempotent = spec.idempotent ?? (spec.method === 'GET' || spec.method === 'PUT' || spec.method === 'DELETE');
  const exchange = createExchange({
    origin: url.origin,
    dispatcher: spec.allow_private_network ? deps.dispatchers.open : deps.dispatchers.guarded,
    retries: idempotent ? (spec.retries ?? DEFAULT_RETRIES) : 0,
    maxResponseBytes: spec.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    followRedirects: spec.follow_redirects ?? 0,
    ...(deps.sleep && { sleep: deps.sleep }),
  });

  return {
    name: config.name,
    description: config.description,
    parameters,
    concurrencySafe: config.concurrency_safe ?? false,
    ...settingsOf(config),
    async run(args, ctx) {
      const expanded = url.expand(args);
      const rest = Object.fromEntries(Object.entries(args).filter(([name]) => !url.placeholders.has(name)));
      const filled = await headers.fill(ctx.credentials);
      return exchange(
        {
          path: sendsBody ? expanded : appendQuery(expanded, rest),
          method: spec.method,
          headers: filled.headers,
          body: sendsBody ? { text: JSON.stringify(rest), type: 'application/json' } : undefined,
          secrets: filled.secrets,
        },
        ctx,
      );
    },
  };
}
