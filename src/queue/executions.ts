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

/** How long a submission waits for Redis before it answers STATE_UNAVAILABLE. */
const SUBMIT_TIMEOUT_MS = 2_000;

/** The BullMQ states a job passes, as an execution's status. */
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
 * How BullMQ handles an execution job. One attempt: a batch that throws has
 * hit a fault the pipeline could not turn into call results, and running it
 * again would not help; a job whose worker died is not an attempt (stalled
 * recovery hands it on, see worker.ts). Finished jobs are kept for the
 * retention time, and at most `retention_count` of each kind, so Redis
 * memory stays bounded whatever the submission rate.
 */
export function executionJobOptions(config: Config['async']): JobsOptions {
  const keep = { age: Math.ceil(config.retention_ms / 1000), count: config.retention_count };
  return { attempts: 1, removeOnComplete: keep, removeOnFail: keep };
}

/** The body of a finished job, as GET /executions/{id} and a callback carry it. */
export function finishedBody(id: string, job: ExecutionJob, outcome: ExecutionOutcome): ExecutionBody {
  const { results, messages } = executeResponse(job.format, job.calls, outcome.results);
  return { execution_id: id, status: 'completed', results, messages };
}

/** What a failed execution says: the cause stays in the worker's log, never on the wire. */
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

/** The submitting side of the queue: the server's. Workers take jobs with worker.ts. */
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
    // Surfaced by the submissions that fail; without a listener an EventEmitter would throw it.
    this.queue.on('error', () => undefined);
    this.jobOptions = executionJobOptions(config);
  }

  /** Queue a batch under its execution id. Throws STATE_UNAVAILABLE when Redis does not take it in time: then nothing is queued. */
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

  /** The execution as `tenant` may see it: undefined when it does not exist, belongs to another tenant, or is past its retention. */
  async read(tenant: string, id: string): Promise<ExecutionBody | undefined> {
    if (!EXECUTION_ID.test(id)) return undefined;
    let job: Job<ExecutionJob, ExecutionOutcome> | undefined;
    let state: string;
    try {
      // The state first: a job read before it was (the other order) could say completed without its results.
      state = await this.queue.getJobState(id);
      job = await this.queue.getJob(id);
      if (!job || job.data.tenant !== tenant) return undefined;
    } catch (err) {
      throw new GatewayError('STATE_UNAVAILABLE', { message: 'The queue (Redis) is unreachable.', retryAfterMs: 1_000, cause: err });
    }
    const status = STATUS[state];
    if (status === undefined) return undefined;
    // BullMQ removes aged jobs only when a later one finishes; the retention promised is this one. Wall
    // time, not the app's clock: `finishedOn` is the worker's wall time.
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
