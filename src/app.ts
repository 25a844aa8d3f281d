import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AuditTrail } from './audit/index.js';
import type { Config } from './config/schema.js';
import { consoleRoutes } from './console/route.js';
import { adminRoutes } from './http/admin.js';
import { auditRoutes } from './http/audit.js';
import { connectionRoutes } from './http/connections.js';
import { approvalRoutes } from './http/approvals.js';
import { installAuth } from './http/auth.js';
import { frameworkErrorOptions, installErrorHandling } from './http/errors.js';
import { executeRoutes } from './http/execute.js';
import { executionsRoutes } from './http/executions.js';
import { healthRoutes } from './http/health.js';
import { metricsRoute } from './http/metrics.js';
import { installJsonBodyParser } from './http/json-body.js';
import { mcpRoutes } from './http/mcp.js';
import { oauthLinkRoutes } from './http/oauth-links.js';
import { offersRoutes } from './http/offers.js';
import { oauthMetadataRoutes } from './http/oauth-metadata.js';
import { outputsRoutes } from './http/outputs.js';
import { installEarlyRefusals } from './http/plugins/early-refusals.js';
import { installInflightCap, installKeyInflightCap } from './http/plugins/inflight.js';
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
import type { CredentialProvider } from './tools/credentials.js';
import type { TokenVerifier } from './identity/index.js';
import { withGrants, type Vault } from './vault/index.js';
import { createEnvCredentials } from './tools/credentials.js';
import type { UpstreamOffering } from './tools/mcp/offers.js';

/** Tests pass memory stores, a manual clock and their own registry. The app closes none of them. */
export interface AppDeps {
  audit?: AuditTrail;
  state: StateStore;
  spill: SpillStore;
  registry: ToolRegistry;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** A registry of its own per app unless given. */
  metrics?: Metrics;
  requestTimeoutMs?: number;
  /** Without it `"mode":"async"` answers 400. */
  executions?: ExecutionQueue;
  tracing?: Tracing;
  outbox?: WebhookOutbox;
  /** The tools' secrets (start-up's, from the environment); without it no tool has one. */
  credentials?: CredentialProvider;
  /** Access tokens of `auth.oauth`'s issuers, discovered (createTokenVerifier); required when that list is not empty. */
  tokens?: TokenVerifier;
  /** Users' grants at `oauth_providers` (createVault); required when that list is not empty. */
  vault?: Vault;
  /** The upstream MCP servers' supervisors: their resources and prompts are served on /mcp and over REST. */
  upstreams?: readonly UpstreamOffering[];
}

/** Only the request's arrival is timed (fastify's default is no limit); past it 408 REQUEST_TIMEOUT. */
export const REQUEST_TIMEOUT_MS = 30_000;

const ENVELOPE_OPTIONS = { ...requestIdOptions, ...frameworkErrorOptions };

export async function buildApp(deps: AppDeps, config: Config): Promise<FastifyInstance> {
  if (config.auth.oauth.length > 0 && !deps.tokens) throw new Error('auth.oauth names issuers: buildApp needs deps.tokens');
  if (config.oauth_providers.length > 0 && !deps.vault) throw new Error('oauth_providers names providers: buildApp needs deps.vault');
  const metrics = deps.metrics ?? createMetrics();
  const requestTimeout = deps.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: config.limits.body_bytes,
    ...ENVELOPE_OPTIONS,
    ...requestLogOptions(),
    // Requests during shutdown get our own NOT_READY envelope (installShutdown).
    return503OnClosing: false,
    routerOptions: { maxParamLength: 256 },
    // request.ip: the rightmost X-Forwarded-For hop that is not a trusted proxy; with none configured the header is never read.
    trustProxy: config.trust_proxy.length > 0 ? [...config.trust_proxy] : false,
    // A field we do not read must be refused, not stripped.
    ajv: { customOptions: { removeAdditional: false } },
    requestTimeout,
    // Given to Node's constructor: on Node 20 a requestTimeout set only after it is never enforced.
    http: { requestTimeout, connectionsCheckingInterval: Math.min(1_000, requestTimeout) },
  });

  const credentials = deps.vault ? withGrants(deps.credentials ?? createEnvCredentials({}), deps.vault) : deps.credentials;
  const pipeline = createPipelineDeps({ ...deps, metrics, ...(credentials && { credentials }) }, config);

  // JSON only: anything else is 415.
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);
  for (const schema of WIRE_SCHEMAS) app.addSchema(schema);
  installErrorHandling(app);
  // The span and the id first, so every refusal carries them; nothing refused early takes an in-flight slot.
  if (deps.tracing) installTracing(app, deps.tracing);
  installRequestId(app);
  installShutdown(app);
  installEarlyRefusals(app);
  installInflightCap(app, config.limits.inflight_requests);
  installRequestLog(app, metrics);
  installAuth(app, config, deps.state, deps.clock, deps.tokens);
  installKeyInflightCap(app, config.limits.inflight_per_key);

  await installOpenApi(app);

  await app.register(healthRoutes(pipeline));
  await app.register(oauthMetadataRoutes(deps.tokens));
  if (config.metrics_port === undefined) await app.register(metricsRoute(metrics, pipeline));
  await app.register(toolsRoutes(pipeline));
  await app.register(executeRoutes(pipeline, { executions: deps.executions, config: config.async, clock: deps.clock }));
  await app.register(executionsRoutes(deps.executions));
  await app.register(mcpRoutes(pipeline));
  await app.register(offersRoutes(pipeline));
  await app.register(outputsRoutes(deps.spill));
  await app.register(approvalRoutes(pipeline));
  await app.register(adminRoutes(pipeline));
  await app.register(auditRoutes(pipeline));
  await app.register(consoleRoutes());
  if (deps.vault) {
    await app.register(oauthLinkRoutes(deps.vault));
    await app.register(connectionRoutes(deps.vault));
  }

  if (deps.executions) registerQueueDepth(metrics.registry, deps.executions.queue);

  installSpillSweep(app, deps.spill, deps.clock, deps.logger, config.spill.ttl_ms);

  app.decorate('metrics', metrics);
  app.decorate('pipeline', pipeline);
  return app;
}

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
