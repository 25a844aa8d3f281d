import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { parseEnvelope, type ParsedEnvelope } from '../protocol/calls/index.js';
import { GatewayError } from '../protocol/errors.js';
import { renderMessages } from '../protocol/messages.js';
import { visiblePayload, type CallResult } from '../protocol/result.js';
import { errorResponses, schemaRef } from '../protocol/schemas.js';
import { replayOnto, requestFingerprint } from '../pipeline/idempotency.js';
import { executeCalls } from '../pipeline/run-batch.js';
import type { ExecContext, PipelineDeps } from '../pipeline/types.js';
import { StateUnavailableError, type StoredResult } from '../state/state-store.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const SESSION_ID_MAX = 256;

interface ExecuteResponse {
  results: CallResult[];
  messages: unknown[];
}

/** An Idempotency-Key record: the results only, since the messages are rendered for each retry. */
interface StoredResponse {
  results: CallResult[];
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

function stateUnavailable(): GatewayError {
  return new GatewayError('STATE_UNAVAILABLE', {
    message: 'The Idempotency-Key cannot be honoured while the state store is unreachable; nothing was run.',
    retryAfterMs: 1_000,
  });
}

/** The response's `messages`, rendered from its results in the request's format and bound to the request's call ids. */
function respond(envelope: ParsedEnvelope, results: CallResult[], serialized?: readonly string[]): ExecuteResponse {
  const messages = renderMessages(
    envelope.format,
    results.map((r, i) => {
      const payload = visiblePayload(r);
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
  async function run(request: FastifyRequest, envelope: ParsedEnvelope, sessionId: string): Promise<ExecuteResponse> {
    const ctx: ExecContext = { caller: request.caller, sessionId, log: request.log };
    if (envelope.timeoutMs !== undefined) ctx.timeoutMs = envelope.timeoutMs;
    const { results, serialized } = await executeCalls(envelope.calls, ctx, deps);
    return respond(envelope, results, serialized);
  }

  /**
   * Replays a whole response for clients whose model regenerates call ids on
   * retry (contract 3.4): matched on what a retry keeps (requestFingerprint),
   * answered with the retry's ids and in its format.
   */
  async function runOnce(request: FastifyRequest, given: string, envelope: ParsedEnvelope, sessionId: string): Promise<ExecuteResponse> {
    const tenant = request.caller.tenant;
    // Per API key: another key of the tenant (perhaps allowed fewer tools) must not be handed this key's response.
    const key = `${request.caller.keyId}\n${given}`;
    const fingerprint = requestFingerprint(sessionId, envelope.calls);
    const leaseMs = deps.config.limits.tool_timeout_ms * deps.config.limits.calls_per_batch + 5_000;
    let claim;
    try {
      claim = await deps.state.claimRequest(tenant, key, fingerprint, leaseMs);
    } catch (err) {
      if (!(err instanceof StateUnavailableError)) throw err;
      deps.health.failed(err, request.log);
      throw stateUnavailable();
    }
    if (claim.outcome === 'mismatch') {
      throw new GatewayError('IDEMPOTENCY_MISMATCH', {
        message: 'This Idempotency-Key was already used with other tool calls (tool names and arguments, in order) or another session.',
      });
    }
    const replayed = (stored: StoredResult) => respond(envelope, replayOnto((stored as unknown as StoredResponse).results, envelope.calls));
    if (claim.outcome === 'done') return replayed(claim.response);
    if (claim.outcome === 'in_flight') {
      const response = await deps.state.awaitRequest(tenant, key, deps.config.limits.tool_timeout_ms);
      if (response) return replayed(response);
      throw new GatewayError('REQUEST_IN_PROGRESS', { retryAfterMs: 1_000 });
    }
    let response: ExecuteResponse;
    try {
      response = await run(request, envelope, sessionId);
    } catch (err) {
      await deps.state.releaseRequest(tenant, key).catch(() => undefined);
      throw err;
    }
    const stored: StoredResponse = { results: response.results };
    await deps.state
      .completeRequest(tenant, key, stored as unknown as StoredResult, deps.config.state.replay_ttl_ms)
      .catch((err: unknown) => request.log.warn({ err }, 'could not store the response for its Idempotency-Key'));
    return response;
  }

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
        const sessionId = sessionIdOf(request, envelope.sessionId);
        return key === undefined ? run(request, envelope, sessionId) : runOnce(request, key, envelope, sessionId);
      },
    );
  };
}
