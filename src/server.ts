import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import Fastify, { LogController } from 'fastify';
import { pino } from 'pino';
import { buildApp } from './app.js';
import { ConfigError, isLoopback, loadConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import { metricsRoute } from './http/health.js';
import { loggerOptions } from './observability/logger.js';
import { createRegistry, registryDefaults } from './registry/registry.js';
import { createSpillStore } from './spill/index.js';
import { systemClock } from './state/clock.js';
import { createMemoryStateStore } from './state/memory.js';
import { createRedisStateStore } from './state/redis/index.js';
import type { StateStore } from './state/state-store.js';
import { createHttpDispatchers } from './tools/http/index.js';
import { loadTools } from './tools/index.js';

function stateStore(config: Config, log: pino.Logger): StateStore {
  const url = config.state.redis_url;
  if (!url) {
    log.warn('no REDIS_URL: state is in memory, so this process must be the only replica');
    return createMemoryStateStore();
  }
  return createRedisStateStore({
    url,
    keyPrefix: config.state.key_prefix,
    connectTimeoutMs: config.state.connect_timeout_ms,
    commandTimeoutMs: config.state.command_timeout_ms,
  });
}

/** Read the environment, build the real dependencies, listen, and shut down cleanly on SIGTERM/SIGINT. */
export async function serve(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const logger = pino(loggerOptions(config.log_level));
  const workspace = resolve(config.workspace);
  mkdirSync(workspace, { recursive: true });
  const dispatchers = createHttpDispatchers();
  let registry;
  let spill;
  try {
    registry = createRegistry(loadTools(config, { workspace, env, dispatchers }), registryDefaults(config));
    spill = createSpillStore(config.spill.url, { ttlMs: config.spill.ttl_ms, clock: systemClock });
  } catch (err) {
    console.error(`invalid configuration:\n${(err as Error).message.replace(/^/gm, '  - ')}`);
    process.exit(2);
  }
  const state = stateStore(config, logger);
  const app = await buildApp({ state, spill, registry, clock: systemClock, logger }, config);
  const metricsApp = config.metrics_port === undefined ? undefined : Fastify({ loggerInstance: logger, logController: new LogController({ disableRequestLogging: true }) });
  if (metricsApp) await metricsApp.register(metricsRoute(app.metrics, app.pipeline));

  if (config.keys.length === 0) {
    logger.warn(
      isLoopback(config.host)
        ? `no API keys configured: serving the local caller on loopback ${config.host} only`
        : `no API keys configured and allow_unauthenticated is set: ${config.host} is open to anyone who can reach it`,
    );
  }
  await app.listen({ host: config.host, port: config.port });
  if (metricsApp) await metricsApp.listen({ host: config.host, port: config.metrics_port! });
  logger.info({ workspace, tools: registry.list().map((t) => t.name), state: config.state.redis_url ? 'redis' : 'memory' }, 'toolgate ready');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    try {
      await app.close();
      await metricsApp?.close();
      await state.close();
      await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
      logger.info('stopped');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
