import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { allowedByAll } from '../policy/index.js';
import type { CallFormat, NormalizedCall } from '../protocol/calls/index.js';
import type { CallError } from '../protocol/errors.js';
import type { CallResult } from '../protocol/result.js';
import type { TraceHeaders } from '../observability/spans.js';
import type { Caller, ExecContext } from '../pipeline/types.js';

/** BullMQ queue names, under the deployment's key prefix (state/redis/keys.ts). */
export const EXECUTIONS_QUEUE = 'executions';
export const CALLBACKS_QUEUE = 'callbacks';

/** `exec_` and 32 hex characters: the BullMQ job id, and what `GET /executions/{id}` takes. */
export const EXECUTION_ID = /^exec_[0-9a-f]{32}$/;

export function newExecutionId(): string {
  return `exec_${randomBytes(16).toString('hex')}`;
}

/**
 * A queued batch: everything the synchronous pipeline reads from a request,
 * and nothing secret (no API key, no key hash). The caller is carried as the
 * key resolved it at submission, so a worker with another key list still runs
 * the batch with the rights it was submitted with.
 */
export interface ExecutionJob {
  calls: NormalizedCall[];
  tenant: string;
  key_id: string;
  scopes: Array<'execute' | 'admin'>;
  /** The key's tool names or globs; null: every tool. */
  tools: string[] | null;
  /** Further lists the caller was held to (its key's toolsets, the request's toolset), each one; absent in jobs queued before toolsets. */
  only?: string[][];
  rate_limit_per_minute: number | null;
  session_id: string;
  format: CallFormat;
  timeout_ms: number | null;
  callback_url: string | null;
  submitted_at: number;
  /** The model that proposed the calls, for the per-call log lines; absent when unknown (and in jobs queued before it was carried). */
  model?: string;
  /** With tracing on, the submitting request's span (W3C Trace Context), which the worker's span continues. */
  trace?: TraceHeaders;
}

/** What a completed job stores: the results; `messages` are rendered from them on each read. */
export interface ExecutionOutcome {
  results: CallResult[];
}

export type ExecutionStatus = 'queued' | 'running' | 'completed' | 'failed';

/** The body of `GET /executions/{id}`, and of a callback. */
export interface ExecutionBody {
  execution_id: string;
  status: ExecutionStatus;
  results?: CallResult[];
  messages?: unknown[];
  error?: CallError;
}

export function jobOf(
  calls: NormalizedCall[],
  caller: Caller,
  request: {
    sessionId: string;
    format: CallFormat;
    timeoutMs?: number;
    callbackUrl?: string;
    model?: string | undefined;
    trace?: TraceHeaders | undefined;
  },
  now: number,
): ExecutionJob {
  const job: ExecutionJob = {
    calls,
    tenant: caller.tenant,
    key_id: caller.keyId,
    scopes: [...caller.scopes],
    tools: caller.tools ? [...caller.tools] : null,
    only: (caller.only ?? []).map((list) => [...list]),
    rate_limit_per_minute: caller.rateLimit?.perMinute ?? null,
    session_id: request.sessionId,
    format: request.format,
    timeout_ms: request.timeoutMs ?? null,
    callback_url: request.callbackUrl ?? null,
    submitted_at: now,
  };
  if (request.model !== undefined) job.model = request.model;
  if (request.trace !== undefined) job.trace = { ...request.trace };
  return job;
}

/** The request a job stands for, as the pipeline sees one: same tenant, key rights, session and timeout. */
export function contextOf(job: ExecutionJob, log: FastifyBaseLogger): ExecContext {
  const caller: Caller = {
    keyId: job.key_id,
    tenant: job.tenant,
    scopes: new Set(job.scopes),
    allows: allowedByAll([job.tools ?? undefined, ...(job.only ?? [])]),
  };
  if (job.tools) caller.tools = job.tools;
  if (job.only && job.only.length > 0) caller.only = job.only;
  if (job.rate_limit_per_minute !== null) caller.rateLimit = { perMinute: job.rate_limit_per_minute };
  const ctx: ExecContext = { caller, sessionId: job.session_id, log, format: job.format };
  if (job.timeout_ms !== null) ctx.timeoutMs = job.timeout_ms;
  if (job.model !== undefined) ctx.model = job.model;
  return ctx;
}
