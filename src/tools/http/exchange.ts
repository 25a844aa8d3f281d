import type { Dispatcher } from 'undici';
import { GatewayError } from '../../protocol/errors.js';
import type { ToolContext, ToolOutput } from '../tool.js';
import { classifyHttpFailure, statusFailure, transportFailure } from './failure.js';
import { readBody, readExcerpt } from './response.js';
import { RETRYABLE_STATUSES, backoffMs, parseRetryAfter, realSleep, type Sleep } from './retry.js';
import { createScrubber } from './secrets.js';

/** HTTP methods an HTTP tool may send. */
export type HttpMethod = 'GET' | 'HEAD' | 'OPTIONS' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One upstream request, as a tool built it from the call's arguments: always to the tool's own origin. */
interface HttpTarget {
  /** Starts with `/`: the origin is the tool's, never the call's. */
  path: string;
  method: HttpMethod;
  /** The configured headers and those filled from arguments: sent to the tool's origin only. */
  headers: Record<string, string>;
  /** The body the gateway built from the arguments, and its media type (a configured `content-type` wins at the tool's origin). */
  body: { text: string; type: string } | undefined;
  /** The credentials filled into `headers`: scrubbed from every answer. */
  secrets?: readonly string[];
}

/** One hop: to the tool's origin, or where a redirect says. `trace` (the gateway's trace context) and the body's type may cross origins. */
type Hop = HttpTarget & { origin: string; trace: Readonly<Record<string, string>> };

/** How a tool's requests are sent: shared by the config file's HTTP tools and the tools of OpenAPI documents. */
interface ExchangeOptions {
  /** The operator's origin (scheme, host, port): every call's first request goes there, whatever its arguments hold. */
  origin: string;
  /** The pool: guarded, or open when the tool allows private networks. */
  dispatcher: Dispatcher;
  /** Attempts after the first on connect errors, resets and 429/502/503/504; 0 for a request that may not be repeated. */
  retries: number;
  maxResponseBytes: number;
  followRedirects: number;
  sleep?: Sleep;
}

const NO_SECRETS: readonly string[] = [];
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// How much of a discarded body (a redirect, a retried error) is drained so the socket can be reused.
const DRAIN_LIMIT_BYTES = 64 * 1024;

/** The first hop: the path joined to the tool's origin must name that same origin. */
function firstHop(origin: string, target: HttpTarget, trace: Readonly<Record<string, string>>): Hop {
  const url = target.path.startsWith('/') && URL.canParse(`${origin}${target.path}`) ? new URL(`${origin}${target.path}`) : undefined;
  if (url?.origin !== origin) {
    throw new GatewayError('PERMISSION_DENIED', {
      message: `Refused to send a request whose URL would leave ${origin}; a call goes only to its tool's origin.`,
      details: { reason: 'origin' },
    });
  }
  return { ...target, origin, trace };
}

/** What a hop sends: the body's type, the tool's headers (which win), then the gateway's trace context (which replaces any configured one). */
function headersOf(hop: Hop): Record<string, string> {
  return { ...(hop.body && { 'content-type': hop.body.type }), ...hop.headers, ...hop.trace };
}

/**
 * The request after a redirect (RFC 9110 §15.4 method rewriting). A hop to another origin carries none of the tool's headers, configured,
 * `${VAR}` or from arguments, whatever their names: only the gateway's trace context and the type of the body it still sends.
 */
function redirected(from: Hop, status: number, location: string): Hop {
  const next = new URL(location, `${from.origin}${from.path}`);
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new GatewayError('PERMISSION_DENIED', {
      message: `Refused to follow a redirect to a ${next.protocol} URL; only http and https are allowed.`,
      details: { reason: 'redirect_scheme' },
    });
  }
  const toGet = status === 303 || ((status === 301 || status === 302) && from.method === 'POST');
  const crossing = next.origin !== from.origin;
  const headers = crossing ? {} : Object.fromEntries(Object.entries(from.headers).filter(([name]) => !(toGet && name === 'content-type')));
  return {
    origin: next.origin,
    path: `${next.pathname}${next.search}`,
    method: toGet ? 'GET' : from.method,
    headers,
    body: toGet ? undefined : from.body,
    trace: from.trace,
  };
}

/** Send a target: redirects, retries within the deadline (`Retry-After` honoured), the cap with the rest spilled, secrets scrubbed, codes mapped. */
export function createExchange(options: ExchangeOptions): (target: HttpTarget, ctx: ToolContext) => Promise<ToolOutput> {
  const { dispatcher, retries } = options;
  // The credentials' fill answers one object while they stay the same, so its scrubber is made once.
  let scrubbing = { secrets: NO_SECRETS, scrubber: createScrubber(NO_SECRETS) };
  const scrubberOf = (secrets = NO_SECRETS) => {
    if (scrubbing.secrets !== secrets) scrubbing = { secrets, scrubber: createScrubber(secrets) };
    return scrubbing.scrubber;
  };
  const sleep = options.sleep ?? realSleep;

  async function send(first: HttpTarget, ctx: ToolContext): Promise<Dispatcher.ResponseData> {
    // The call's span is the upstream's parent; it replaces any traceparent the config sets.
    let target = firstHop(options.origin, first, { ...ctx.trace });
    for (let hops = 0; ; hops++) {
      // The call's deadline bounds every wait; the signal aborts the rest.
      const remaining = Math.max(1, ctx.deadline - Date.now());
      const response = await dispatcher.request({
        origin: target.origin,
        path: target.path,
        method: target.method,
        headers: headersOf(target),
        body: target.body?.text,
        signal: ctx.signal,
        headersTimeout: remaining,
        bodyTimeout: remaining,
      });
      const location = response.headers.location;
      if (!REDIRECT_STATUSES.has(response.statusCode) || hops >= options.followRedirects) return response;
      if (typeof location !== 'string' || !URL.canParse(location, `${target.origin}${target.path}`)) return response;
      await response.body.dump({ limit: DRAIN_LIMIT_BYTES });
      target = redirected(target, response.statusCode, location);
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

  async function answer(response: Dispatcher.ResponseData, ctx: ToolContext, secrets?: readonly string[]): Promise<ToolOutput> {
    const { statusCode, headers: responseHeaders, body } = response;
    const scrubber = scrubberOf(secrets);
    try {
      if (statusCode >= 200 && statusCode < 300) {
        const contentType = String(responseHeaders['content-type'] ?? '');
        return await readBody(scrubber.stream(body), {
          maxBytes: options.maxResponseBytes,
          contentType,
          spill: (content) => ctx.spill(content),
          secrets: ctx.secrets,
        });
      }
      const excerpt = await readExcerpt(scrubber.stream(body), ctx.secrets);
      throw statusFailure(statusCode, excerpt, parseRetryAfter(responseHeaders['retry-after'], Date.now()));
    } finally {
      if (!body.readableEnded) body.destroy();
    }
  }

  return async (target, ctx) => {
    try {
      return await answer(await sendWithRetries(target, ctx), ctx, target.secrets);
    } catch (err) {
      throw classifyHttpFailure(err, ctx.signal);
    }
  };
}
