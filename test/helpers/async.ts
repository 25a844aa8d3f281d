import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { configFrom } from '../../src/config/load.js';
import {
  queueConnectionOptions,
  ExecutionQueue,
  startWorkers,
  type ExecutionWorkers,
  type QueueConnectionOptions,
} from '../../src/queue/index.js';
import { createRedisStateStore, redisTopology } from '../../src/state/redis/index.js';
import { createHttpDispatchers, type HttpDispatchers } from '../../src/tools/http/index.js';
import type { AuditTrail } from '../../src/audit/index.js';
import type { Tracing } from '../../src/observability/spans.js';
import type { Tool } from '../../src/tools/tool.js';
import { buildTestApp, execute, type TestApp } from './app.js';

export interface AsyncGateway extends TestApp {
  executions: ExecutionQueue;
  connection: QueueConnectionOptions;
  /** The Redis key prefix of this gateway's state and queue (TOOLGATE_REDIS_PREFIX for a worker process). */
  prefix: string;
  /** Workers in this process, on the app's own pipeline; closed with the gateway. */
  startWorkers(options?: { count?: number; concurrency?: number }): ExecutionWorkers;
  /** POST /execute with "mode":"async" added to `body`. */
  submit(body: Record<string, unknown>, headers?: Record<string, string>): ReturnType<typeof execute>;
  read(id: string, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, any> }>;
  /** Polls GET /executions/{id} until its status is one of `statuses`. */
  until(id: string, statuses: string[], headers?: Record<string, string>, timeoutMs?: number): Promise<Record<string, any>>;
}

export interface AsyncGatewayOptions {
  config?: Record<string, unknown>;
  tools?: Tool[];
  dispatchers?: HttpDispatchers;
  /** Tracing for the app and its workers; the test shuts it down. */
  tracing?: Tracing;
  /** Where Redis is, as the config's `state` section says it (sentinels, cluster_nodes…); default the integration Redis. */
  redis?: Record<string, unknown>;
  /** The key prefix of its state and queue; default a new one. */
  prefix?: string;
  /** The audit trail of the app and its workers; the test closes it. */
  audit?: AuditTrail;
}

/**
 * A gateway with async mode on the integration Redis: its state store and
 * its queue under a key prefix of its own, so tests do not see each other's
 * jobs. Workers run only when the test starts them.
 */
export async function asyncGateway(options: AsyncGatewayOptions = {}): Promise<AsyncGateway> {
  const prefix = options.prefix ?? `async-${randomUUID()}`;
  const config = { ...options.config, state: { ...(options.redis ?? { redis_url: inject('redisUrl') }), key_prefix: prefix } };
  const parsed = configFrom(config);
  const state = createRedisStateStore({
    topology: redisTopology(parsed.state)!,
    keyPrefix: prefix,
    connectTimeoutMs: 2_000,
    commandTimeoutMs: 2_000,
  });
  await state.ping();
  const dispatchers = options.dispatchers ?? createHttpDispatchers();
  const connection = queueConnectionOptions(parsed)!;
  const executions = new ExecutionQueue(connection, parsed.async);
  const t = await buildTestApp({
    config,
    state,
    tools: options.tools,
    dispatchers,
    executions,
    ...(options.tracing && { tracing: options.tracing }),
    ...(options.audit && { audit: options.audit }),
  });
  const running: ExecutionWorkers[] = [];
  const read = async (id: string, headers: Record<string, string> = {}) => {
    const response = await t.app.inject({ method: 'GET', url: `/executions/${id}`, headers });
    return { status: response.statusCode, body: response.json() as Record<string, any> };
  };
  return {
    ...t,
    executions,
    connection,
    prefix,
    startWorkers(workerOptions = {}) {
      const workers = startWorkers(
        {
          pipeline: t.app.pipeline,
          config: t.config.async,
          connection,
          dispatchers,
          logger: t.app.log,
          ...(options.tracing && { tracing: options.tracing }),
        },
        { count: workerOptions.count ?? 1, concurrency: workerOptions.concurrency ?? t.config.async.concurrency },
      );
      running.push(workers);
      return workers;
    },
    submit: (body, headers) => execute(t.app, { ...body, mode: 'async' }, headers),
    read,
    async until(id, statuses, headers = {}, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { status, body } = await read(id, headers);
        if (status !== 200) throw new Error(`GET /executions/${id} answered ${status}: ${JSON.stringify(body)}`);
        if (statuses.includes(body.status)) return body;
        if (Date.now() > deadline) throw new Error(`execution ${id} still ${body.status} after ${timeoutMs} ms`);
        await sleep(25);
      }
    },
    async close() {
      await Promise.all(running.splice(0).map((w) => w.close()));
      await t.close();
      await executions.queue.obliterate({ force: true }).catch(() => undefined);
      await executions.close();
      await state.close();
    },
  };
}
