import type { Caller } from '../pipeline/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../config/schema.js';
import type { ParsedEnvelope } from '../protocol/calls/index.js';
import { GatewayError } from '../protocol/errors.js';
import { errorResponses, schemaRef } from '../protocol/schemas.js';
import { callbackUrlProblem, jobOf, newExecutionId, type ExecutionQueue } from '../queue/index.js';
import type { Clock } from '../shared/clock.js';
import { routes } from './routes.js';

/** What an async submission needs besides the request: the queue (absent without Redis) and the async settings. */
export interface AsyncSubmission {
  executions: ExecutionQueue | undefined;
  config: Config['async'];
  clock: Clock;
}

/**
 * `"mode":"async"`: check what can be checked now, queue the batch as a job and answer 202 with where to poll. Every refusal comes before
 * the job is added, so a refused batch leaves nothing queued.
 */
export async function submitExecution(
  request: FastifyRequest,
  reply: FastifyReply,
  envelope: ParsedEnvelope,
  who: { sessionId: string; model: string | undefined },
  submission: AsyncSubmission,
  caller: Caller = request.caller,
) {
  const { executions, config } = submission;
  if (!executions) {
    throw new GatewayError('BAD_REQUEST', {
      message:
        'mode "async" needs Redis: async batches are queued there. Start the gateway with REDIS_URL (or REDIS_SENTINELS, REDIS_CLUSTER_NODES), or send the batch synchronously.',
    });
  }
  if (request.headers['idempotency-key'] !== undefined) {
    throw new GatewayError('BAD_REQUEST', {
      message:
        'Idempotency-Key applies to synchronous requests; an async batch resubmitted with the same call ids and session is answered from their replay records.',
    });
  }
  if (envelope.callbackUrl !== undefined) {
    if (config.callback_secret === undefined) {
      throw new GatewayError('BAD_REQUEST', {
        message: 'callback_url needs async.callback_secret in the gateway configuration, to sign the callback.',
      });
    }
    const problem = callbackUrlProblem(envelope.callbackUrl, config.callback_allow_private_network);
    if (problem) throw new GatewayError('BAD_REQUEST', { message: `${problem}.`, details: { field: 'callback_url' } });
  }
  const { sessionId, model } = who;
  // The worker's span continues the submitting request's trace.
  const job = jobOf(envelope.calls, caller, { ...envelope, sessionId, model, trace: request.span?.headers }, submission.clock.now());
  const id = newExecutionId();
  await executions.submit(id, job);
  request.log.info({ execution_id: id, tenant: job.tenant, session_id: sessionId, calls: job.calls.length }, 'execution queued');
  const statusUrl = `/executions/${id}`;
  return reply.code(202).header('location', statusUrl).send({ execution_id: id, status: 'queued', status_url: statusUrl });
}

const ExecutionSchema = {
  summary: 'Status and results of an async batch',
  description:
    'queued, running, completed (with results and messages, as the synchronous request would have answered) or failed. Only the submitting tenant sees an execution; any other id, and one past async.retention_ms, is 404.',
  params: Type.Object({ id: Type.String({ maxLength: 128 }) }),
  response: { 200: schemaRef('Execution'), ...errorResponses(401, 403, 404, 503) },
};

export function executionsRoutes(executions: ExecutionQueue | undefined) {
  return routes((app) => {
    app.get('/executions/:id', { config: { scope: 'execute' }, schema: ExecutionSchema }, async (request) => {
      const { id } = request.params;
      const execution = await executions?.read(request.caller.tenant, id);
      if (!execution) throw new GatewayError('NOT_FOUND', { message: 'No execution with this id.' });
      return execution;
    });
  });
}
