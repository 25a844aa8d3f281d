import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from './config/schema.js';
import { adminRoutes } from './http/admin.js';
import { installAuth } from './http/auth.js';
import { unreadableBody } from './http/body-encoding.js';
import { installErrorHandling, sendError } from './http/errors.js';
import { executeRoutes } from './http/execute.js';
import { healthRoutes, metricsRoute } from './http/health.js';
import { installJsonBodyParser } from './http/json-body.js';
import { mcpRoutes } from './http/mcp.js';
import { outputsRoutes } from './http/outputs.js';
import { toolsRoutes } from './http/tools.js';
import { createMetrics, type Metrics } from './observability/metrics.js';
import { createPolicy } from './pipeline/gates/permission.js';
import { StateHealth } from './pipeline/state-health.js';
import type { PipelineDeps } from './pipeline/types.js';
import { GatewayError } from './protocol/errors.js';
import { WIRE_SCHEMAS } from './protocol/schemas.js';
import type { ToolRegistry } from './registry/registry.js';
import type { SpillStore } from './spill/spill-store.js';
import type { Clock } from './state/clock.js';
import type { StateStore } from './state/state-store.js';
import { VERSION } from './version.js';

/** Everything the app uses from outside; tests pass memory stores, a manual clock and their own registry. */
export interface AppDeps {
  state: StateStore;
  spill: SpillStore;
  registry: ToolRegistry;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** A registry of its own per app unless given; tests that build many apps pass `createMetrics({ processMetrics: false })`. */
  metrics?: Metrics;
  /** How long a request may take to arrive, headers and body; {@link REQUEST_TIMEOUT_MS} unless given (tests pass a short one). */
  requestTimeoutMs?: number;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const SPILL_SWEEP_MAX_MS = 10 * 60_000;
/**
 * fastify's default is no limit: a client that sends headers and then
 * trickles (or stops sending) its body holds an in-flight slot for ever.
 * Generous for a 1 MiB body; only the arrival of the request is timed, not
 * the tool calls that follow. Past it Node answers 408 (clientErrorHandler).
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Request ids and the error envelope also for what fastify answers before any
 * route or hook runs (contract 1: `x-request-id` on every response): a URL
 * the router cannot decode or a path parameter over its length limit
 * (`frameworkErrors`), and a request Node's HTTP parser refuses
 * (`clientErrorHandler`, which has no request object, so the id is new).
 */
const ENVELOPE_OPTIONS = {
  requestIdHeader: false as const,
  genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
    const given = req.headers['x-request-id'];
    return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  },
  frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    if (error.code === 'FST_ERR_ASYNC_CONSTRAINT') return sendError(reply, new GatewayError('INTERNAL'));
    const message = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter of the URL is too long.' : 'The URL is not valid (bad percent-encoding).';
    return sendError(reply, new GatewayError('BAD_REQUEST', { message }));
  },
  clientErrorHandler: (err: Error & { code?: string }, socket: Socket) => {
    // A reset connection has no one left to answer (Node's own rule).
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const message = status === 408 ? 'The request took too long to arrive.' : status === 431 ? 'The request headers are too large.' : 'The request is not valid HTTP.';
    const body = JSON.stringify({ error: { code: 'BAD_REQUEST', message } });
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${randomUUID()}\r\nconnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(err);
  },
};

export async function buildApp(deps: AppDeps, config: Config): Promise<FastifyInstance> {
  const metrics = deps.metrics ?? createMetrics();
  const requestTimeout = deps.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: config.limits.body_bytes,
    ...ENVELOPE_OPTIONS,
    // One 'request completed' line of our own (onResponse) replaces fastify's two per request.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    // Requests during shutdown get our own NOT_READY envelope (onRequest below), not fastify's.
    return503OnClosing: false,
    routerOptions: { maxParamLength: 256 },
    // request.ip: the rightmost X-Forwarded-For hop that is not a trusted proxy, and only when the TCP peer
    // is one; with none configured the header is never read. Checked at start-up (config/load.ts).
    trustProxy: config.trust_proxy.length > 0 ? [...config.trust_proxy] : false,
    // fastify's default strips properties a schema does not allow; a field we do not read must be refused, not ignored.
    ajv: { customOptions: { removeAdditional: false } },
    requestTimeout,
    // Given to Node's constructor too: on Node 20 a requestTimeout set only after it is never enforced. The
    // check interval: how often Node looks for requests past their timeout (its default, 30 s, doubles the bound).
    http: { requestTimeout, connectionsCheckingInterval: Math.min(1_000, requestTimeout) },
  });

  const pipeline: PipelineDeps = {
    registry: deps.registry,
    state: deps.state,
    spill: deps.spill,
    clock: deps.clock,
    metrics,
    policy: createPolicy(config.policy.rules),
    health: new StateHealth(deps.logger, metrics),
    config: { limits: config.limits, state: config.state, defaults: config.defaults, keys: config.keys },
  };

  // JSON only: fastify would otherwise hand text/plain bodies to the routes as strings (contract 1: 415).
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);
  for (const schema of WIRE_SCHEMAS) app.addSchema(schema);
  installErrorHandling(app);

  // Bounds the memory a burst can take: past the limit a request is refused before its body is read.
  let inflight = 0;
  let closing = false;
  const admitted = new WeakSet<object>();
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) throw new GatewayError('NOT_READY', { retryAfterMs: 1_000 });
    // No route: answered before the body is read, so a body for a route that does not exist (which needs
    // no key) never holds an in-flight slot or the memory of its body.
    if (request.is404) throw new GatewayError('NOT_FOUND', { message: `No route ${request.method} ${request.url.split('?')[0]!.slice(0, 200)}.` });
    const unreadable = unreadableBody(request.headers);
    if (unreadable) throw unreadable;
    // Liveness is "200 while the process serves" (contract 1), also when the cap is reached.
    if (request.routeOptions.url === '/healthz') return;
    if (inflight >= config.limits.inflight_requests) throw new GatewayError('OVERLOADED', { retryAfterMs: 1_000 });
    inflight += 1;
    admitted.add(request);
  });
  app.addHook('onRequestAbort', async (request) => {
    if (admitted.delete(request)) inflight -= 1;
  });
  app.addHook('onResponse', async (request, reply) => {
    if (admitted.delete(request)) inflight -= 1;
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    request.log.info(
      { method: request.method, route, status: reply.statusCode, duration_ms: Math.round(reply.elapsedTime), client_ip: request.ip },
      'request completed',
    );
  });
  installAuth(app, config, deps.state, deps.clock);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'toolgate',
        version: VERSION,
        description: 'HTTP tool-execution gateway for LLM agents: tool schemas per model dialect, validated, authorized, ordered execution.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(healthRoutes(pipeline));
  if (config.metrics_port === undefined) await app.register(metricsRoute(metrics, pipeline));
  await app.register(toolsRoutes(pipeline));
  await app.register(executeRoutes(pipeline));
  await app.register(mcpRoutes(pipeline));
  await app.register(outputsRoutes(deps.spill));
  await app.register(adminRoutes(pipeline));

  const sweepEvery = Math.min(Math.max(1_000, Math.floor(config.spill.ttl_ms / 4)), SPILL_SWEEP_MAX_MS);
  const sweeper = setInterval(() => {
    deps.spill.sweep(deps.clock.now()).catch((err: unknown) => deps.logger.warn({ err }, 'spill sweep failed'));
  }, sweepEvery);
  sweeper.unref();
  app.addHook('onClose', async () => clearInterval(sweeper));

  app.decorate('metrics', metrics);
  app.decorate('pipeline', pipeline);
  return app;
}

/**
 * The app that serves `/metrics` on its own port (`METRICS_PORT`), with the
 * same request ids and error envelope as the main app.
 */
export async function buildMetricsApp(metrics: Metrics, pipeline: PipelineDeps, logger: FastifyBaseLogger): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger,
    ...ENVELOPE_OPTIONS,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
  });
  installErrorHandling(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  await app.register(metricsRoute(metrics, pipeline));
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
    pipeline: PipelineDeps;
  }
}
