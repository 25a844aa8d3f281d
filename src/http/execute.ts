import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { parseEnvelope, type ParsedEnvelope } from '../protocol/calls/index.js';
import { GatewayError } from '../protocol/errors.js';
import { renderMessages } from '../protocol/messages.js';
import { visiblePayload, type CallResult } from '../protocol/result.js';
import { errorResponses, schemaRef } from '../protocol/schemas.js';
import { executeOnce, type RequestOutcome } from '../pipeline/idempotency.js';
import { executeCalls } from '../pipeline/run-batch.js';
import type { ExecContext, PipelineDeps } from '../pipeline/types.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const SESSION_ID_MAX = 256;

interface ExecuteResponse {
  results: CallResult[];
  messages: unknown[];
}

function sessionIdOf(request: FastifyRequest, fromBody: string | undefined): string {
  if (fromBody !== undefined) return fromBody;
  const header = request.headers['x-session-id'];
  if (typeof header === 'string' && header.length > 0) {
    if (header.length > SESSION_ID_MAX) throw new GatewayError('BAD_REQUEST', { message: `x-session-id is longer than ${SESSION_ID_MAX} characters.` });
    return header;
  }
  return request.caller.keyId;
}

/** The response's `messages`, rendered from its results in the request's format and bound to the request's call ids. */
function respond(envelope: ParsedEnvelope, { results, serialized, payloads }: RequestOutcome): ExecuteResponse {
  const messages = renderMessages(
    envelope.format,
    results.map((r, i) => {
      const payload = payloads?.[i] ?? visiblePayload(r);
      return {
        tool_call_id: r.tool_call_id,
        name: r.name,
        content: serialized?.[i] ?? JSON.stringify(payload),
        payload: payload as unknown as Record<string, unknown>,
        is_error: r.status === 'error',
        id_generated: envelope.calls[i]!.idGenerated,
      };
    }),
  );
  return { results, messages };
}

export function executeRoutes(deps: PipelineDeps) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.post(
      '/execute',
      {
        config: { scope: 'execute' },
        schema: {
          summary: 'Run a batch of tool calls',
          description:
            'Accepts a bare array of tool calls, {"tool_calls": [...]}, an OpenAI or Anthropic assistant message, or an OpenAI Responses output array. Results come back in request order, bound to the call ids.',
          headers: Type.Object({
            'idempotency-key': Type.Optional(Type.String({ description: 'Replays the whole response of an earlier request with this key.' })),
            'x-session-id': Type.Optional(Type.String({ description: 'The agent conversation; defaults to the API key id.' })),
          }),
          body: Type.Unknown({ description: 'A tool-call envelope (see the description).' }),
          response: { 200: schemaRef('ExecuteResponse'), ...errorResponses(400, 401, 403, 409, 413, 415, 422, 429, 503) },
        },
      },
      async (request) => {
        const key = request.headers['idempotency-key'];
        if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
          throw new GatewayError('BAD_REQUEST', { message: 'Idempotency-Key must be 1 to 255 printable ASCII characters.' });
        }
        const envelope = parseEnvelope(request.body, { maxCalls: deps.config.limits.calls_per_batch });
        if (envelope.mode === 'async') {
          throw new GatewayError('BAD_REQUEST', { message: 'mode "async" is not available on this gateway; send the batch synchronously.' });
        }
        const ctx: ExecContext = { caller: request.caller, sessionId: sessionIdOf(request, envelope.sessionId), log: request.log };
        if (envelope.timeoutMs !== undefined) ctx.timeoutMs = envelope.timeoutMs;
        return respond(envelope, key === undefined ? await executeCalls(envelope.calls, ctx, deps) : await executeOnce(key, envelope.calls, ctx, deps));
      },
    );
  };
}
