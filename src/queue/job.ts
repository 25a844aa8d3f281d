import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { allowedByAll } from '../policy/index.js';
import type { CallFormat, NormalizedCall } from '../protocol/calls/index.js';
import type { CallError } from '../protocol/errors.js';
import type { CallResult } from '../protocol/result.js';
import type { TraceHeaders } from '../observability/spans.js';
import type { Caller, ExecContext, KeyScope } from '../pipeline/types.js';

export const EXECUTIONS_QUEUE = 'executions';
export const CALLBACKS_QUEUE = 'callbacks';

export const EXECUTION_ID = /^exec_[0-9a-f]{32}$/;

export function newExecutionId(): string {
  return `exec_${randomBytes(16).toString('hex')}`;
}

/** A queued batch: what the pipeline reads from a request, nothing secret; the caller's rights as resolved at submission. */
export interface ExecutionJob {
  calls: NormalizedCall[];
  tenant: string;
  key_id: string;
  scopes: KeyScope[];
  /** The person the batch is for (Caller.user); absent: the key's own, and in older jobs. */
  user?: string;
  /** Null: every tool. */
  tools: string[] | null;
  /** Further lists the caller was held to (toolsets); absent in older jobs. */
  only?: string[][];
  rate_limit_per_minute: number | null;
  /** The key's limit counts per user; absent: per key. */
  rate_limit_per?: 'user';
  session_id: string;
  format: CallFormat;
  timeout_ms: number | null;
  callback_url: string | null;
  submitted_at: number;
  /** Absent when unknown, and in older jobs. */
  model?: string;
  /** The submitting request's span (W3C Trace Context), which the worker's span continues. */
  trace?: TraceHeaders;
}

/** `messages` are rendered from the results on each read. */
export interface ExecutionOutcome {
  results: CallResult[];
}

export type ExecutionStatus = 'queued' | 'running' | 'completed' | 'failed';

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
  if (caller.user !== undefined) job.user = caller.user;
  if (caller.rateLimit?.per) job.rate_limit_per = caller.rateLimit.per;
  if (request.model !== undefined) job.model = request.model;
  if (request.trace !== undefined) job.trace = { ...request.trace };
  return job;
}

export function contextOf(job: ExecutionJob, log: FastifyBaseLogger): ExecContext {
  const caller: Caller = {
    keyId: job.key_id,
    tenant: job.tenant,
    scopes: new Set(job.scopes),
    allows: allowedByAll([job.tools ?? undefined, ...(job.only ?? [])]),
  };
  if (job.tools) caller.tools = job.tools;
  if (job.only && job.only.length > 0) caller.only = job.only;
  if (job.rate_limit_per_minute !== null)
    caller.rateLimit = job.rate_limit_per
      ? { perMinute: job.rate_limit_per_minute, per: job.rate_limit_per }
      : { perMinute: job.rate_limit_per_minute };
  if (job.user !== undefined) caller.user = job.user;
  const ctx: ExecContext = {
    caller,
    sessionId: job.session_id,
    log: job.user === undefined ? log : log.child({ user: job.user }),
    format: job.format,
  };
  if (job.timeout_ms !== null) ctx.timeoutMs = job.timeout_ms;
  if (job.model !== undefined) ctx.model = job.model;
  return ctx;
}
