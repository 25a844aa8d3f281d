import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from './config/schema.js';
import { adminRoutes } from './http/admin.js';
import { installAuth } from './http/auth.js';
import { installErrorHandling } from './http/errors.js';
import { executeRoutes } from './http/execute.js';
import { healthRoutes, metricsRoute } from './http/health.js';
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
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const SPILL_SWEEP_MAX_MS = 10 * 60_000;

export async function buildApp(deps: AppDeps, config: Config): Promise<FastifyInstance> {
  const metrics = deps.metrics ?? createMetrics();
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: config.limits.body_bytes,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // One 'request completed' line of our own (onResponse) replaces fastify's two per request.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    // Requests during shutdown get our own NOT_READY envelope (onRequest below), not fastify's.
    return503OnClosing: false,
    routerOptions: { maxParamLength: 256 },
  });

  const pipeline: PipelineDeps = {
    registry: deps.registry,
    state: deps.state,
    spill: deps.spill,
    clock: deps.clock,
    metrics,
    policy: createPolicy(config.policy.rules),
    health: new StateHealth(deps.logger, metrics),
    config: { limits: config.limits, state: config.state, defaults: config.defaults },
  };

  // JSON only: fastify would otherwise hand text/plain bodies to the routes as strings (contract 1: 415).
  app.removeContentTypeParser('text/plain');
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
      { method: request.method, route, status: reply.statusCode, duration_ms: Math.round(reply.elapsedTime) },
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

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
    pipeline: PipelineDeps;
  }
}
