import { Queue, type Job, type JobsOptions } from 'bullmq';
import type { RedisClient } from '../state/redis/index.js';
import type { Config } from '../config/schema.js';
import { GatewayError } from '../protocol/errors.js';
import { executeResponse } from '../protocol/response.js';
import { queueConnection, type QueueConnectionOptions } from './connection.js';
import {
  EXECUTION_ID,
  EXECUTIONS_QUEUE,
  type ExecutionBody,
  type ExecutionJob,
  type ExecutionOutcome,
  type ExecutionStatus,
} from './job.js';

const SUBMIT_TIMEOUT_MS = 2_000;

const STATUS: Record<string, ExecutionStatus> = {
  waiting: 'queued',
  prioritized: 'queued',
  delayed: 'queued',
  'waiting-children': 'queued',
  active: 'running',
  completed: 'completed',
  failed: 'failed',
};

/**
 * One attempt: a batch that throws hit a fault retrying would not fix (a dead worker is not an attempt, see worker.ts).
 * Finished jobs are kept for the retention, at most `retention_count` of each kind, so Redis memory stays bounded.
 */
export function executionJobOptions(config: Config['async']): JobsOptions {
  const keep = { age: Math.ceil(config.retention_ms / 1000), count: config.retention_count };
  return { attempts: 1, removeOnComplete: keep, removeOnFail: keep };
}

export function finishedBody(id: string, job: ExecutionJob, outcome: ExecutionOutcome): ExecutionBody {
  const { results, messages } = executeResponse(job.format, job.calls, outcome.results);
  return { execution_id: id, status: 'completed', results, messages };
}

/** The cause stays in the worker's log, never on the wire. */
export function failedBody(id: string): ExecutionBody {
  return {
    execution_id: id,
    status: 'failed',
    error: new GatewayError('INTERNAL', {
      message:
        'The execution could not be completed; calls that ran kept their results, so resubmitting the batch with the same call ids and session runs only the rest.',
    }).toCallError(),
  };
}

export class ExecutionQueue {
  readonly queue: Queue<ExecutionJob, ExecutionOutcome>;
  private readonly connection: RedisClient;
  private readonly jobOptions: JobsOptions;

  constructor(
    options: QueueConnectionOptions,
    private readonly config: Config['async'],
  ) {
    this.connection = queueConnection(options, true);
    this.queue = new Queue(EXECUTIONS_QUEUE, { connection: this.connection, prefix: options.prefix });
    this.queue.on('error', () => undefined);
    this.jobOptions = executionJobOptions(config);
  }

  /** Throws STATE_UNAVAILABLE when Redis does not take it in time: then nothing is queued. */
  async submit(id: string, job: ExecutionJob): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.queue.add('execute', job, { ...this.jobOptions, jobId: id }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), SUBMIT_TIMEOUT_MS);
        }),
      ]);
    } catch (err) {
      throw new GatewayError('STATE_UNAVAILABLE', {
        message: 'The queue (Redis) did not accept the batch; nothing was queued.',
        retryAfterMs: 1_000,
        cause: err,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Undefined when absent, another tenant's, or past its retention. */
  async read(tenant: string, id: string): Promise<ExecutionBody | undefined> {
    if (!EXECUTION_ID.test(id)) return undefined;
    let job: Job<ExecutionJob, ExecutionOutcome> | undefined;
    let state: string;
    try {
      // The state first: a job read before it could say completed without its results.
      state = await this.queue.getJobState(id);
      job = await this.queue.getJob(id);
      if (!job || job.data.tenant !== tenant) return undefined;
    } catch (err) {
      throw new GatewayError('STATE_UNAVAILABLE', { message: 'The queue (Redis) is unreachable.', retryAfterMs: 1_000, cause: err });
    }
    const status = STATUS[state];
    if (status === undefined) return undefined;
    // BullMQ removes aged jobs only when a later one finishes; wall time, as `finishedOn` is the worker's.
    if (job.finishedOn !== undefined && Date.now() - job.finishedOn > this.config.retention_ms) return undefined;
    if (status === 'completed') return finishedBody(id, job.data, job.returnvalue);
    if (status === 'failed') return failedBody(id);
    return { execution_id: id, status };
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}
