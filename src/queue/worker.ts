import { hostname } from 'node:os';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import type { RedisClient } from '../state/redis/index.js';
import type { Config } from '../config/schema.js';
import type { Tracing } from '../observability/spans.js';
import { executeCalls } from '../pipeline/execute-calls.js';
import type { PipelineDeps } from '../pipeline/types.js';
import type { HttpDispatchers } from '../tools/http/index.js';
import { callbackAttempts, deliverCallback, type CallbackJob } from './callbacks.js';
import { queueConnection, type QueueConnectionOptions } from './connection.js';
import { executionJobOptions, failedBody, finishedBody } from './executions.js';
import { CALLBACKS_QUEUE, contextOf, EXECUTIONS_QUEUE, type ExecutionBody, type ExecutionJob, type ExecutionOutcome } from './job.js';
import { queueMetrics } from './metrics.js';

/** Hand-overs of a job whose worker died before it fails: a batch that kills every worker must stop somewhere. */
const MAX_RECOVERIES = 2;

const CALLBACK_CONCURRENCY = 8;

interface WorkerDeps {
  pipeline: PipelineDeps;
  config: Config['async'];
  connection: QueueConnectionOptions;
  /** Callbacks go through the HTTP tools' SSRF guard. */
  dispatchers: HttpDispatchers;
  logger: FastifyBaseLogger;
  tracing?: Tracing;
}

interface WorkerOptions {
  count: number;
  concurrency: number;
}

/** `close` lets each finish the batches it holds, takes no new one, and closes their connections. */
export interface ExecutionWorkers {
  close(): Promise<void>;
}

/**
 * A job runs with the submitting key's rights and session, so a job run again after its worker died (stalled-job
 * recovery) gets the stored results of the calls that completed (call-id replay) and runs only the rest.
 */
export function startWorkers(deps: WorkerDeps, options: WorkerOptions): ExecutionWorkers {
  const metrics = queueMetrics(deps.pipeline.metrics.registry);
  const connections: RedisClient[] = [];
  const connect = () => {
    const client = queueConnection(deps.connection);
    connections.push(client);
    return client;
  };
  const common = {
    prefix: deps.connection.prefix,
    lockDuration: deps.config.lock_ms,
    stalledInterval: deps.config.lock_ms,
    maxStalledCount: MAX_RECOVERIES,
  };
  const callbacks = new Queue<CallbackJob>(CALLBACKS_QUEUE, { connection: connect(), prefix: deps.connection.prefix });
  callbacks.on('error', (err) => deps.logger.warn({ err }, 'callback queue error'));
  const keep = executionJobOptions(deps.config).removeOnFail;

  /** One delivery per execution: a job run again after a crash adds none. */
  const queueCallback = async (job: Job<ExecutionJob>, body: ExecutionBody) => {
    const url = job.data.callback_url;
    if (url === null) return;
    await callbacks.add(
      'deliver',
      { execution_id: job.id!, url, body: JSON.stringify(body) },
      { jobId: `callback_${job.id!}`, ...callbackAttempts(deps.config), removeOnComplete: true, removeOnFail: keep },
    );
  };

  const run = async (job: Job<ExecutionJob, ExecutionOutcome>): Promise<ExecutionOutcome> => {
    const id = job.id!;
    const span = deps.tracing?.start('execution', 'consumer', job.data.trace, {
      'toolgate.execution_id': id,
      'toolgate.attempt': job.attemptsStarted,
    });
    const log = deps.logger.child(span ? { execution_id: id, trace_id: span.traceId, span_id: span.spanId } : { execution_id: id });
    const ctx = contextOf(job.data, log);
    if (span) ctx.span = span;
    const started = performance.now();
    log.info(
      { tenant: job.data.tenant, session_id: job.data.session_id, attempt: job.attemptsStarted, recovered: job.stalledCounter > 0 },
      'execution running',
    );
    let outcome: ExecutionOutcome;
    try {
      const { results } = await executeCalls(job.data.calls, ctx, deps.pipeline);
      outcome = { results };
    } catch (err) {
      span?.end('failed');
      const seconds = (performance.now() - started) / 1000;
      metrics.jobDuration.observe({ outcome: 'failed' }, seconds);
      log.error({ err, duration_ms: Math.round(seconds * 1000) }, 'execution failed');
      await queueCallback(job, failedBody(id));
      throw err;
    }
    span?.end();
    await queueCallback(job, finishedBody(id, job.data, outcome));
    const seconds = (performance.now() - started) / 1000;
    metrics.jobDuration.observe({ outcome: 'completed' }, seconds);
    log.info({ duration_ms: Math.round(seconds * 1000) }, 'execution completed');
    return outcome;
  };

  const name = `${hostname()}:${process.pid}`;
  const workers = Array.from({ length: options.count }, () => {
    const worker = new Worker<ExecutionJob, ExecutionOutcome>(EXECUTIONS_QUEUE, run, {
      ...common,
      connection: connect(),
      concurrency: options.concurrency,
      name,
    });
    worker.on('error', (err) => deps.logger.warn({ err }, 'execution worker error'));
    worker.on('stalled', (id) =>
      deps.logger.warn({ execution_id: id }, 'execution stalled: its worker stopped; it goes back to the queue for another'),
    );
    return worker;
  });
  const callbackWorker = new Worker<CallbackJob>(
    CALLBACKS_QUEUE,
    (job) => deliverCallback(job, { config: deps.config, dispatchers: deps.dispatchers, metrics, logger: deps.logger }),
    { ...common, connection: connect(), concurrency: CALLBACK_CONCURRENCY, name },
  );
  callbackWorker.on('error', (err) => deps.logger.warn({ err }, 'callback worker error'));
  callbackWorker.on('failed', (job, err) => {
    if (job && (err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1))) {
      deps.logger.error(
        { execution_id: job.data.execution_id, deliveries: job.attemptsMade, reason: job.failedReason },
        'callback abandoned',
      );
    }
  });

  return {
    async close() {
      await Promise.all([...workers.map((w) => w.close()), callbackWorker.close()]);
      await callbacks.close();
      await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}
