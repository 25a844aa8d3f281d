import { buildApp, buildMetricsApp } from './app.js';
import { isLoopback } from './config/checks.js';
import { inspectConfig } from './config/load.js';
import { logLineScrubber } from './guardrails/index.js';
import { createLogger } from './observability/logger.js';
import { createMetrics } from './observability/metrics.js';
import { startTracing } from './observability/tracing.js';
import { createWebhookOutbox, ExecutionQueue, queueConnectionOptions, startWorkers, type ExecutionWorkers } from './queue/index.js';
import { systemClock } from './shared/clock.js';
import { prepare } from './startup.js';
import { createStateStore } from './state/create.js';
import { closeServices, onStopSignals } from './stop-signals.js';
import { createHttpDispatchers } from './tools/http/index.js';
import { createVault } from './vault/index.js';

/**
 * Read the environment, build the real dependencies, listen, and shut down
 * cleanly on SIGTERM/SIGINT. Throws ConfigError, before any port opens, when
 * the configuration cannot be served.
 */
export async function serve(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const dispatchers = createHttpDispatchers();
  const metrics = createMetrics();
  const report = inspectConfig(env);
  // Before prepare: MCP servers start there and log under the configured level.
  const logger = createLogger(report.config.log_level, logLineScrubber(report.config.guardrails));
  const prepared = await prepare(report, env, dispatchers, metrics, logger);
  const { config, workspace, registry, spill, mcp, tracing: traces, audit } = prepared;
  const tracing = await startTracing(traces);
  const state = createStateStore(config, logger, metrics);
  const vault = prepared.vault && createVault({ settings: prepared.vault, store: state.grants, clock: systemClock, logger, dispatchers });
  const connection = queueConnectionOptions(config);
  const executions = connection ? new ExecutionQueue(connection, config.async) : undefined;
  const outbox = createWebhookOutbox(config, { connection, dispatchers, metrics, logger, deliver: true });
  const app = await buildApp(
    {
      state,
      spill,
      registry,
      clock: systemClock,
      logger,
      metrics,
      credentials: prepared.credentials,
      upstreams: mcp.supervisors,
      ...(prepared.tokens && { tokens: prepared.tokens }),
      ...(vault && { vault }),
      ...(audit && { audit }),
      ...(executions && { executions }),
      ...(tracing && { tracing }),
      ...(outbox && { outbox }),
    },
    config,
  );
  let workers: ExecutionWorkers | undefined;
  if (connection && config.async.inline_workers > 0) {
    workers = startWorkers(
      { pipeline: app.pipeline, config: config.async, connection, dispatchers, logger, ...(tracing && { tracing }) },
      { count: config.async.inline_workers, concurrency: config.async.concurrency },
    );
  }
  const metricsApp = config.metrics_port === undefined ? undefined : await buildMetricsApp(app.metrics, app.pipeline, logger);

  if (config.keys.length === 0 && !prepared.tokens) {
    logger.warn(
      isLoopback(config.host)
        ? `no API keys configured: serving the local caller on loopback ${config.host} only`
        : `no API keys configured and allow_unauthenticated is set: ${config.host} is open to anyone who can reach it`,
    );
  }
  const address = await app.listen({ host: config.host, port: config.port });
  const metricsAddress = metricsApp ? await metricsApp.listen({ host: config.host, port: config.metrics_port! }) : address;

  // Installed before the ready line: whoever reads it may signal at once.
  onStopSignals(logger, 'in-flight requests', async (signal) => {
    logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    await app.close();
    prepared.tokens?.close();
    // After the requests, which may still queue batches; each inline worker finishes the batches it holds.
    await workers?.close();
    await executions?.close();
    await closeServices({ outbox, audit, metricsApp, mcp, openapi: prepared.openapi, state, dispatchers, tracing });
    logger.info('stopped');
  });

  logger.info(
    {
      address,
      metrics: `${metricsAddress}/metrics`,
      tools: registry.list().map((t) => t.name),
      openapi_sources: config.openapi_sources.length > 0 ? 'loading: their tools join when each document is read' : 'none',
      mcp_servers: mcp.supervisors.map((s) => ({ name: s.server, connected: s.connected() })),
      state: connection ? `redis (${connection.topology.kind})` : 'memory',
      spill: config.spill.url,
      audit: audit ? { url: (config.audit as { url?: string }).url ?? 'file://./data/audit', chain: audit.chain } : 'off (audit: false)',
      workspace,
      keys: config.keys.length,
      oauth_issuers: config.auth.oauth.map((issuer) => issuer.issuer),
      oauth_providers: config.oauth_providers.map((provider) => provider.name),
      async: executions ? { inline_workers: config.async.inline_workers } : 'off: needs Redis',
      traces: traces ? traces.url : 'off: OTEL_EXPORTER_OTLP_ENDPOINT not set',
    },
    'toolgate ready',
  );
}
