import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isModelName, MODEL_NAME_MAX, parseEnvelope } from '../protocol/calls/index.js';
import { GatewayError } from '../protocol/errors.js';
import { executeResponse } from '../protocol/response.js';
import { errorResponses, schemaRef } from '../protocol/schemas.js';
import { executeOnce } from '../pipeline/idempotency.js';
import { executeCalls } from '../pipeline/execute-calls.js';
import type { ExecContext, PipelineDeps } from '../pipeline/types.js';
import { submitExecution, type AsyncSubmission } from './executions.js';
import { UserHeader } from './on-behalf.js';
import { sessionIdOf } from './session.js';
import { inToolset, ToolsetParam } from './toolsets.js';
import { routes } from './routes.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Who proposed the calls, for the per-call log line: the body's own record when it is a whole provider response (the provider says which
 * model answered, aliases resolved), else the `x-model` header. A malformed header is refused like any other bad input, also when the body
 * names the model.
 */
function modelOf(request: FastifyRequest, fromBody: string | undefined): string | undefined {
  const header = request.headers['x-model'];
  if (header !== undefined && !isModelName(header)) {
    throw new GatewayError('BAD_REQUEST', {
      message: `x-model must be a model name: at most ${MODEL_NAME_MAX} characters, letters, digits and . _ : / @ + - (starting with a letter or digit).`,
    });
  }
  return fromBody ?? header;
}

const ExecuteSchema = {
  summary: 'Run a batch of tool calls',
  description:
    'Accepts a bare array of tool calls, {"tool_calls": [...]}, an OpenAI or Anthropic assistant message, or an OpenAI Responses output array. Results come back in request order, bound to the call ids. With "mode":"async" the batch is queued instead: 202, then GET /executions/{id}.',
  querystring: Type.Object({ toolset: Type.Optional(ToolsetParam) }),
  headers: Type.Object({
    'idempotency-key': Type.Optional(Type.String({ description: 'Replays the whole response of an earlier request with this key.' })),
    'x-session-id': Type.Optional(Type.String({ description: 'The agent conversation; defaults to the API key id.' })),
    ...UserHeader,
    'x-model': Type.Optional(
      Type.String({
        description:
          'The model that proposed the calls, for the per-call log line; a whole provider response body names its own, which wins.',
      }),
    ),
  }),
  body: Type.Unknown({ description: 'A tool-call envelope (see the description).' }),
  response: {
    200: schemaRef('ExecuteResponse'),
    202: schemaRef('ExecutionAccepted'),
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 503),
  },
};

export function executeRoutes(deps: PipelineDeps, submission: AsyncSubmission) {
  return routes((app) => {
    app.post('/execute', { config: { scope: 'execute' }, schema: ExecuteSchema }, async (request, reply) => {
      const key = request.headers['idempotency-key'];
      if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
        throw new GatewayError('BAD_REQUEST', { message: 'Idempotency-Key must be 1 to 255 printable ASCII characters.' });
      }
      // A call outside the set is UNKNOWN_TOOL, with the set's tools (those the key may use) in details.available.
      const caller = inToolset(request.caller, request.query.toolset, deps.config.toolsets);
      const envelope = parseEnvelope(request.body, { maxCalls: deps.config.limits.calls_per_batch });
      const sessionId = envelope.sessionId ?? sessionIdOf(request, request.caller.keyId);
      const model = modelOf(request, envelope.model);
      if (envelope.mode === 'async') return submitExecution(request, reply, envelope, { sessionId, model }, submission, caller);
      if (envelope.callbackUrl !== undefined) {
        throw new GatewayError('BAD_REQUEST', {
          message: 'callback_url is for "mode":"async"; a synchronous request gets its results in the response.',
        });
      }
      const ctx: ExecContext = { caller, sessionId, log: request.log, format: envelope.format, requestId: request.id };
      if (envelope.timeoutMs !== undefined) ctx.timeoutMs = envelope.timeoutMs;
      if (model !== undefined) ctx.model = model;
      if (request.span) ctx.span = request.span;
      const { results, serialized, payloads } =
        key === undefined ? await executeCalls(envelope.calls, ctx, deps) : await executeOnce(key, envelope.calls, ctx, deps);
      return executeResponse(envelope.format, envelope.calls, results, serialized, payloads);
    });
  });
}
