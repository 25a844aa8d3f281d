import { buildMetricsApp } from './app.js';
import { ConfigError, inspectConfig } from './config/load.js';
import { logLineScrubber } from './guardrails/index.js';
import { createLogger } from './observability/logger.js';
import { createMetrics } from './observability/metrics.js';
import { startTracing } from './observability/tracing.js';
import { createPipelineDeps } from './pipeline/deps.js';
import { createWebhookOutbox, queueConnectionOptions, startWorkers } from './queue/index.js';
import { systemClock } from './shared/clock.js';
import { prepare } from './startup.js';
import { createStateStore } from './state/create.js';
import { closeServices, onStopSignals } from './stop-signals.js';
import { createHttpDispatchers } from './tools/http/index.js';
import { createVault, withGrants } from './vault/index.js';

/**
 * `toolgate worker`: run async batches from the queue, with the same
 * configuration (tools, policy, limits) as the servers that queue them. No
 * HTTP port but `/metrics` on METRICS_PORT when set. SIGTERM/SIGINT: finish
 * the batches held, take no new one, close the queue and Redis, exit.
 */
export async function work(env: NodeJS.ProcessEnv = process.env, options: { concurrency?: number } = {}): Promise<void> {
  const dispatchers = createHttpDispatchers();
  const metrics = createMetrics();
  const report = inspectConfig(env);
  // Before prepare: upstream MCP servers start there, as in the server, and log under the configured level.
  const logger = createLogger(report.config.log_level, logLineScrubber(report.config.guardrails));
  const connection = queueConnectionOptions(report.config);
  if (!connection) {
    throw new ConfigError([
      'REDIS_URL: toolgate worker takes its batches from the Redis queue; set REDIS_URL (or REDIS_SENTINELS, REDIS_CLUSTER_NODES: the one the servers use)',
    ]);
  }
  const prepared = await prepare(report, env, dispatchers, metrics, logger, 'worker');
  const { config, registry, spill, mcp, tracing: traces, audit, credentials } = prepared;
  const tracing = await startTracing(traces);
  const state = createStateStore(config, logger, metrics);
  // An async call needing a person's token uses the same vault as the servers: the grants are in the shared store.
  const vault = prepared.vault && createVault({ settings: prepared.vault, store: state.grants, clock: systemClock, logger, dispatchers });
  // A batch may open approval requests: their events are queued, and the servers deliver them.
  const outbox = createWebhookOutbox(config, { connection, dispatchers, metrics, logger, deliver: false });
  const pipeline = createPipelineDeps(
    {
      registry,
      state,
      spill,
      clock: systemClock,
      logger,
      metrics,
      credentials: vault ? withGrants(credentials, vault) : credentials,
      ...(outbox && { outbox }),
      ...(audit && { audit }),
    },
    config,
  );
  const concurrency = options.concurrency ?? config.async.concurrency;
  const workers = startWorkers(
    { pipeline, config: config.async, connection, dispatchers, logger, ...(tracing && { tracing }) },
    { count: 1, concurrency },
  );
  const metricsApp = config.metrics_port === undefined ? undefined : await buildMetricsApp(metrics, pipeline, logger);
  const metricsAddress = await metricsApp?.listen({ host: config.host, port: config.metrics_port! });

  onStopSignals(logger, 'the batches it holds (another worker takes them over)', async (signal) => {
    logger.info({ signal }, 'worker stopping: finishing the batches it holds, taking no new one');
    await workers.close();
    await closeServices({ outbox, audit, metricsApp, mcp, openapi: prepared.openapi, state, dispatchers, tracing });
    logger.info('worker stopped');
  });

  logger.info(
    {
      concurrency,
      tools: registry.list().map((t) => t.name),
      openapi_sources: config.openapi_sources.length > 0 ? 'loading: their tools join when each document is read' : 'none',
      metrics: metricsAddress && `${metricsAddress}/metrics`,
      traces: traces?.url ?? 'off',
      audit: audit?.chain ?? 'off',
      pid: process.pid,
    },
    'toolgate worker ready',
  );
}
