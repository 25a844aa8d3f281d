import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AuditTrail } from './audit/index.js';
import type { Config } from './config/schema.js';
import { consoleRoutes } from './console/route.js';
import { adminRoutes } from './http/admin.js';
import { auditRoutes } from './http/audit.js';
import { approvalRoutes } from './http/approvals.js';
import { installAuth } from './http/auth.js';
import { frameworkErrorOptions, installErrorHandling } from './http/errors.js';
import { executeRoutes } from './http/execute.js';
import { executionsRoutes } from './http/executions.js';
import { healthRoutes } from './http/health.js';
import { metricsRoute } from './http/metrics.js';
import { installJsonBodyParser } from './http/json-body.js';
import { mcpRoutes } from './http/mcp.js';
import { outputsRoutes } from './http/outputs.js';
import { installEarlyRefusals } from './http/plugins/early-refusals.js';
import { installInflightCap } from './http/plugins/inflight.js';
import { installOpenApi } from './http/plugins/openapi.js';
import { installRequestId, requestIdOptions } from './http/plugins/request-id.js';
import { installRequestLog, requestLogOptions } from './http/plugins/request-log.js';
import { installShutdown } from './http/plugins/shutdown.js';
import { installTracing } from './http/plugins/tracing.js';
import { installSpillSweep } from './http/plugins/spill-sweep.js';
import { toolsRoutes } from './http/tools.js';
import { createMetrics, type Metrics } from './observability/metrics.js';
import type { Tracing } from './observability/spans.js';
import { createPipelineDeps } from './pipeline/deps.js';
import type { PipelineDeps } from './pipeline/types.js';
import { WIRE_SCHEMAS } from './protocol/schemas.js';
import { registerQueueDepth, type ExecutionQueue } from './queue/index.js';
import type { ToolRegistry } from './registry/registry.js';
import type { SpillStore } from './spill/spill-store.js';
import type { Clock } from './shared/clock.js';
import type { StateStore } from './state/state-store.js';
import type { WebhookOutbox } from './webhooks/index.js';

/** Everything the app uses from outside; tests pass memory stores, a manual clock and their own registry. */
export interface AppDeps {
  /** This process's audit chain; none with `audit: false`. The app does not close it. */
  audit?: AuditTrail;
  state: StateStore;
  spill: SpillStore;
  registry: ToolRegistry;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** A registry of its own per app unless given; tests that build many apps pass `createMetrics({ processMetrics: false })`. */
  metrics?: Metrics;
  /** How long a request may take to arrive, headers and body; {@link REQUEST_TIMEOUT_MS} unless given (tests pass a short one). */
  requestTimeoutMs?: number;
  /** The async queue, with Redis; without it `"mode":"async"` answers 400. The app does not close it. */
  executions?: ExecutionQueue;
  /** With tracing on (OTEL_EXPORTER_OTLP_ENDPOINT): a span per request and per call. The app does not shut it down. */
  tracing?: Tracing;
  /** With `approvals.webhook_url`: where approval events wait for delivery. The app does not close it. */
  outbox?: WebhookOutbox;
}

/**
 * fastify's default is no limit: a client that sends headers and then
 * trickles (or stops sending) its body holds an in-flight slot for ever.
 * Generous for a 1 MiB body; only the arrival of the request is timed, not
 * the tool calls that follow. Past it the answer is 408 REQUEST_TIMEOUT (clientErrorHandler).
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/** Request ids and the error envelope, also for what fastify answers before any route or hook runs. */
const ENVELOPE_OPTIONS = { ...requestIdOptions, ...frameworkErrorOptions };

export async function buildApp(deps: AppDeps, config: Config): Promise<FastifyInstance> {
  const metrics = deps.metrics ?? createMetrics();
  const requestTimeout = deps.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: config.limits.body_bytes,
    ...ENVELOPE_OPTIONS,
    ...requestLogOptions(),
    // Requests during shutdown get our own NOT_READY envelope (installShutdown), not fastify's.
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

  const pipeline = createPipelineDeps({ ...deps, metrics }, config);

  // JSON only: fastify would otherwise hand text/plain bodies to the routes as strings; anything else is 415.
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);
  for (const schema of WIRE_SCHEMAS) app.addSchema(schema);
  installErrorHandling(app);
  // In this order: the span and the id first, so every refusal carries them; nothing refused early takes an in-flight slot.
  if (deps.tracing) installTracing(app, deps.tracing);
  installRequestId(app);
  installShutdown(app);
  installEarlyRefusals(app);
  installInflightCap(app, config.limits.inflight_requests);
  installRequestLog(app, metrics);
  installAuth(app, config, deps.state, deps.clock);

  await installOpenApi(app);

  await app.register(healthRoutes(pipeline));
  if (config.metrics_port === undefined) await app.register(metricsRoute(metrics, pipeline));
  await app.register(toolsRoutes(pipeline));
  await app.register(executeRoutes(pipeline, { executions: deps.executions, config: config.async, clock: deps.clock }));
  await app.register(executionsRoutes(deps.executions));
  await app.register(mcpRoutes(pipeline));
  await app.register(outputsRoutes(deps.spill));
  await app.register(approvalRoutes(pipeline));
  await app.register(adminRoutes(pipeline));
  await app.register(auditRoutes(pipeline));
  await app.register(consoleRoutes());

  if (deps.executions) registerQueueDepth(metrics.registry, deps.executions.queue);

  installSpillSweep(app, deps.spill, deps.clock, deps.logger, config.spill.ttl_ms);

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
    ...requestLogOptions(),
  });
  installErrorHandling(app);
  installRequestId(app);
  await app.register(metricsRoute(metrics, pipeline));
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
    pipeline: PipelineDeps;
  }
}
