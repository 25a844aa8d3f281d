import type { Dispatcher } from 'undici';
import { GatewayError } from '../../protocol/errors.js';
import type { ToolContext, ToolOutput } from '../tool.js';
import { classifyHttpFailure, statusFailure, transportFailure } from './failure.js';
import { readBody, readExcerpt } from './response.js';
import { RETRYABLE_STATUSES, backoffMs, parseRetryAfter, realSleep, type Sleep } from './retry.js';
import { createScrubber, type ResolvedHeaders } from './secrets.js';

/** HTTP methods an HTTP tool may send. */
export type HttpMethod = 'GET' | 'HEAD' | 'OPTIONS' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One upstream request, as a tool built it from the call's arguments. */
interface HttpTarget {
  origin: string;
  path: string;
  method: HttpMethod;
  headers: Record<string, string>;
  body: string | undefined;
}

/** How a tool's requests are sent: shared by the config file's HTTP tools and the tools of OpenAPI documents. */
interface ExchangeOptions {
  /** The pool: guarded, or open when the tool allows private networks. */
  dispatcher: Dispatcher;
  /** The configured headers; their secrets are scrubbed from every answer and kept to the first origin on redirects. */
  headers: ResolvedHeaders;
  /** Attempts after the first on connect errors, resets and 429/502/503/504; 0 for a request that may not be repeated. */
  retries: number;
  maxResponseBytes: number;
  followRedirects: number;
  sleep?: Sleep;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// How much of a discarded body (a redirect, a retried error) is drained so the socket can be reused.
const DRAIN_LIMIT_BYTES = 64 * 1024;

/** The request after a redirect: RFC 9110 §15.4 method rewriting, secrets kept to the first origin. */
function redirected(from: HttpTarget, status: number, location: string, secretHeaders: ReadonlySet<string>): HttpTarget {
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
 * Send a target and turn the answer into a tool output: redirects (when
 * allowed), retries with backoff honouring `Retry-After` within the call's
 * deadline, the response cap with the rest spilled, secrets scrubbed, and
 * every failure mapped to the gateway's codes.
 */
export function createExchange(options: ExchangeOptions): (target: HttpTarget, ctx: ToolContext) => Promise<ToolOutput> {
  const { dispatcher, headers, retries } = options;
  const scrubber = createScrubber(headers.secrets);
  const sleep = options.sleep ?? realSleep;

  async function send(first: HttpTarget, ctx: ToolContext): Promise<Dispatcher.ResponseData> {
    // The call's span is the upstream's parent; it replaces any traceparent the config sets.
    const trace = ctx.trace;
    let target = trace ? { ...first, headers: { ...first.headers, ...trace } } : first;
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
      if (!REDIRECT_STATUSES.has(response.statusCode) || hops >= options.followRedirects) return response;
      if (typeof location !== 'string' || !URL.canParse(location, `${target.origin}${target.path}`)) return response;
      await response.body.dump({ limit: DRAIN_LIMIT_BYTES });
      target = redirected(target, response.statusCode, location, headers.secretHeaders);
    }
  }

  async function sendWithRetries(target: HttpTarget, ctx: ToolContext): Promise<Dispatcher.ResponseData> {
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
        return await readBody(scrubber.stream(body), {
          maxBytes: options.maxResponseBytes,
          contentType,
          spill: (content) => ctx.spill(content),
        });
      }
      const excerpt = await readExcerpt(scrubber.stream(body));
      throw statusFailure(statusCode, excerpt, parseRetryAfter(responseHeaders['retry-after'], Date.now()));
    } finally {
      if (!body.readableEnded) body.destroy();
    }
  }

  return async (target, ctx) => {
    try {
      return await answer(await sendWithRetries(target, ctx), ctx);
    } catch (err) {
      throw classifyHttpFailure(err, ctx.signal);
    }
  };
}
