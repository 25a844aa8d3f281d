import type { Dispatcher } from 'undici';
import type { ToolConfig } from '../../config/schema.js';
import { GatewayError } from '../../protocol/errors.js';
import { settingsOf } from '../settings.js';
import type { Tool, ToolContext, ToolOutput } from '../tool.js';
import type { HttpDispatchers } from './dispatcher.js';
import { classifyHttpFailure, statusFailure, transportFailure } from './failure.js';
import { readBody, readExcerpt } from './response.js';
import { RETRYABLE_STATUSES, backoffMs, parseRetryAfter, realSleep, type Sleep } from './retry.js';
import { createScrubber, resolveHeaders, type ResolvedHeaders } from './secrets.js';
import { appendQuery, compileUrlTemplate, type UrlTemplate } from './template.js';

export interface HttpToolDeps {
  /** Shared pools; the tool's `allow_private_network` picks one. */
  dispatchers: HttpDispatchers;
  /** Source of `${VAR}` in header values, read once at creation. */
  env: NodeJS.ProcessEnv;
  /** Waits between retries. */
  sleep?: Sleep;
}

type Method = ToolConfig['http']['method'];

interface Target {
  origin: string;
  path: string;
  method: Method;
  headers: Record<string, string>;
  body: string | undefined;
}

const DEFAULT_MAX_RESPONSE_BYTES = 1_048_576;
const DEFAULT_RETRIES = 2;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// How much of a discarded body (a redirect, a retried error) is drained so the socket can be reused.
const DRAIN_LIMIT_BYTES = 64 * 1024;

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

/** The request after a redirect: RFC 9110 §15.4 method rewriting, secrets kept to the first origin. */
function redirected(from: Target, status: number, location: string, secretHeaders: ReadonlySet<string>): Target {
  const next = new URL(location, `${from.origin}${from.path}`);
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new GatewayError('PERMISSION_DENIED', {
      message: `Refused to follow a redirect to a ${next.protocol} URL; only http and https are allowed.`,
      details: { reason: 'redirect_scheme' },
    });
  }
  const toGet = status === 303 || ((status === 301 || status === 302) && from.method === 'POST');
  const headers = Object.fromEntries(
    Object.entries(from.headers).filter(
      ([name]) => !(next.origin !== from.origin && secretHeaders.has(name)) && !(toGet && name === 'content-type'),
    ),
  );
  return {
    origin: next.origin,
    path: `${next.pathname}${next.search}`,
    method: toGet ? 'GET' : from.method,
    headers,
    body: toGet ? undefined : from.body,
  };
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
  const retries = idempotent ? (spec.retries ?? DEFAULT_RETRIES) : 0;
  const maxBytes = spec.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxRedirects = spec.follow_redirects ?? 0;
  const dispatcher = spec.allow_private_network ? deps.dispatchers.open : deps.dispatchers.guarded;
  const scrubber = createScrubber(headers.secrets);
  const sleep = deps.sleep ?? realSleep;

  async function send(first: Target, ctx: ToolContext): Promise<Dispatcher.ResponseData> {
    let target = first;
    for (let hops = 0; ; hops++) {
      // The call's deadline bounds every wait; the signal aborts the rest.
      const remaining = Math.max(1, ctx.deadline - Date.now());
      const response = await dispatcher.request({
        origin: target.origin,
        path: target.path,
        method: target.method,
        headers: target.headers,
        body: target.body,
        signal: ctx.signal,
        headersTimeout: remaining,
        bodyTimeout: remaining,
      });
      const location = response.headers.location;
      if (!REDIRECT_STATUSES.has(response.statusCode) || hops >= maxRedirects) return response;
      if (typeof location !== 'string' || !URL.canParse(location, `${target.origin}${target.path}`)) return response;
      await response.body.dump({ limit: DRAIN_LIMIT_BYTES });
      target = redirected(target, response.statusCode, location, headers.secretHeaders);
    }
  }

  async function sendWithRetries(target: Target, ctx: ToolContext): Promise<Dispatcher.ResponseData> {
    for (let attempt = 0; ; attempt++) {
      let wait: number;
      try {
        const response = await send(target, ctx);
        if (!RETRYABLE_STATUSES.has(response.statusCode) || attempt >= retries) return response;
        wait = parseRetryAfter(response.headers['retry-after'], Date.now()) ?? backoffMs(attempt);
        // Waiting past the deadline would only turn the upstream's answer into a TIMEOUT.
        if (Date.now() + wait >= ctx.deadline) return response;
        await response.body.dump({ limit: DRAIN_LIMIT_BYTES });
      } catch (err) {
        const reason = transportFailure(err);
        if (attempt >= retries || ctx.signal.aborted || (reason !== 'connect' && reason !== 'reset')) throw err;
        wait = backoffMs(attempt);
        if (Date.now() + wait >= ctx.deadline) throw err;
      }
      await sleep(wait, ctx.signal);
    }
  }

  async function answer(response: Dispatcher.ResponseData, ctx: ToolContext): Promise<ToolOutput> {
    const { statusCode, headers: responseHeaders, body } = response;
    try {
      if (statusCode >= 200 && statusCode < 300) {
        const contentType = String(responseHeaders['content-type'] ?? '');
        return await readBody(scrubber.stream(body), { maxBytes, contentType, spill: (content) => ctx.spill(content) });
      }
      const excerpt = await readExcerpt(scrubber.stream(body));
      throw statusFailure(statusCode, excerpt, parseRetryAfter(responseHeaders['retry-after'], Date.now()));
    } finally {
      if (!body.readableEnded) body.destroy();
    }
  }

  return {
    name: config.name,
    description: config.description,
    parameters: config.parameters,
    concurrencySafe: config.concurrency_safe ?? false,
    ...settingsOf(config),
    async run(args, ctx) {
      try {
        const expanded = url.expand(args);
        const rest = Object.fromEntries(Object.entries(args).filter(([name]) => !url.placeholders.has(name)));
        const own = sendsBody ? { 'content-type': 'application/json', ...headers.headers } : headers.headers;
        const trace = ctx.trace;
        const target: Target = {
          origin: url.origin,
          path: sendsBody ? expanded : appendQuery(expanded, rest),
          method: spec.method,
          // The call's span is the upstream's parent (contract 8); it replaces any traceparent the config sets.
          headers: trace ? { ...own, ...trace } : own,
          body: sendsBody ? JSON.stringify(rest) : undefined,
        };
        return await answer(await sendWithRetries(target, ctx), ctx);
      } catch (err) {
        throw classifyHttpFailure(err, ctx.signal);
      }
    },
  };
}
