import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { NormalizedCall } from '../protocol/calls/index.js';
import {
  allowsBatches,
  callToolParams,
  classify,
  MCP_PROTOCOL_VERSIONS,
  negotiateVersion,
  RPC_ERRORS,
  rpcError,
  rpcResult,
  toCallToolResult,
  transportError,
  type RpcId,
  type RpcResponse,
} from '../protocol/mcp.js';
import { rpcErrorResponses } from '../protocol/schemas.js';
import { executeCalls } from '../pipeline/execute-calls.js';
import type { Caller, ExecContext, PipelineDeps } from '../pipeline/types.js';
import { toMcp } from '../protocol/providers/mcp.js';
import { isRecord } from '../protocol/json.js';
import type { ToolEvents } from '../tools/tool.js';
import { VERSION } from '../version.js';
import { gatewayErrorOf, sendError } from './errors.js';
import { ClientAsks, sessionIdFor } from './mcp-asks.js';
import { answerOffer, OFFER_CAPABILITIES } from './mcp-offers.js';
import { ListChangedStreams } from './mcp-listen.js';
import { streamRoutes } from './mcp-listen-routes.js';
import { acceptsEventStream, CallsInFlight, LazyEventStream } from './mcp-stream.js';
import { callIdOf, guardOrigin, protocolVersionOf, sessionOf } from './mcp-headers.js';
import { routes } from './routes.js';
import { UserHeader } from './on-behalf.js';
import { inToolset, ToolsetPath } from './toolsets.js';

const SERVER_INFO = { name: 'toolgate', version: VERSION };
const INSTRUCTIONS =
  'Every call passes the gateway: argument validation, permission policy, rate limits and circuit breakers. ' +
  'A failed call is an error result whose JSON names a code and says whether retrying can help. ' +
  'Edit and Write fail with CONFLICT when the file changed since your last Read of it: Read it again, then retry.';

/** The body of a POST that is not JSON: answered with a JSON-RPC parse error, not the envelope error. */
class Unparsable {}

/** What a message's answer is when it went out as an SSE stream of its own (see LazyEventStream). */
const STREAMED = Symbol('streamed');

/** logging, "Log Levels" (RFC 5424). */
const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/** What answering one message needs from its HTTP request. */
interface Exchange {
  request: FastifyRequest;
  /** The request's caller, held to the toolset of `/mcp/{toolset}`. */
  caller: Caller;
  reply: FastifyReply;
  sessionId: string;
  mcpSessionId?: string;
  inBatch: boolean;
}

type JsonParser = (request: FastifyRequest, body: string, done: (err: Error | null, value?: unknown) => void) => void;

export function mcpRoutes(deps: PipelineDeps) {
  const inFlight = new CallsInFlight();
  const asks = new ClientAsks();
  const streams = new ListChangedStreams(deps);
  const { catalog } = deps;

  async function listTools(id: RpcId, params: Record<string, unknown>, x: Exchange): Promise<RpcResponse> {
    // pagination, "Error Handling": we never hand out a cursor, so any cursor is an invalid one.
    if (params.cursor !== undefined)
      return rpcError(id, RPC_ERRORS.INVALID_PARAMS, 'Invalid cursor: tools/list answers with every tool in one page.');
    const visible = await catalog.visible(x.caller, x.request.log);
    return rpcResult(id, { tools: toMcp(visible.map((e) => e.tool)) });
  }

  /**
   * One call through the pipeline. A client that takes a stream (and sent this
   * call alone) hears the upstream's progress and log messages while it runs;
   * its `notifications/cancelled` for the request stops it, and a stream then
   * ends without a response.
   */
  async function callTool(id: RpcId, params: Record<string, unknown>, x: Exchange): Promise<RpcResponse | typeof STREAMED> {
    const parsed = callToolParams(params);
    if ('problem' in parsed) return rpcError(id, RPC_ERRORS.INVALID_PARAMS, parsed.problem);
    const running = inFlight.start(x.caller, x.mcpSessionId, id);
    const stream = !x.inBatch && acceptsEventStream(x.request) ? new LazyEventStream(x.reply) : undefined;
    try {
      const meta = params._meta;
      const events = stream?.events(isRecord(meta) ? meta.progressToken : undefined);
      if (events) events.ask = asks.asker(x.caller, x.mcpSessionId, (message) => stream!.send(message));
      const response = await runCall(id, parsed, x, running.signal, events);
      if (!stream?.started) return response;
      if (!running.signal.aborted) stream.send(response);
      stream.end();
      return STREAMED;
    } finally {
      running.done();
    }
  }

  async function runCall(
    id: RpcId,
    parsed: { name: string; arguments: Record<string, unknown> },
    x: Exchange,
    cancel: AbortSignal,
    events?: ToolEvents,
  ): Promise<RpcResponse> {
    const ctx: ExecContext = {
      caller: x.caller,
      sessionId: x.sessionId,
      log: x.request.log,
      format: 'mcp',
      cancel,
      requestId: x.request.id,
    };
    if (events) ctx.events = events;
    if (x.request.span) ctx.span = x.request.span;
    const call: NormalizedCall = {
      index: 0,
      id: callIdOf(id, x.mcpSessionId),
      idGenerated: x.mcpSessionId === undefined,
      name: parsed.name,
      rawArguments: parsed.arguments,
      shape: 'flat',
    };
    const { results, payloads, serialized } = await executeCalls([call], ctx, deps);
    const payload = payloads[0]!;
    // server/tools, "Error Handling": an unknown tool is a protocol error; everything else reaches the model.
    if (payload.error?.code === 'UNKNOWN_TOOL') {
      return rpcError(id, RPC_ERRORS.INVALID_PARAMS, `Unknown tool: ${parsed.name.slice(0, 100)}`, payload.error);
    }
    const outputSchema = deps.registry.get(parsed.name)?.tool.outputSchema;
    return rpcResult(id, toCallToolResult(payload, serialized[0]!, results[0]!.content, outputSchema));
  }

  function initialize(id: RpcId, params: Record<string, unknown>, x: Exchange): RpcResponse {
    if (x.inBatch) return rpcError(id, RPC_ERRORS.INVALID_REQUEST, 'initialize may not be part of a batch.');
    if (typeof params.protocolVersion !== 'string')
      return rpcError(id, RPC_ERRORS.INVALID_PARAMS, 'initialize needs params.protocolVersion.');
    // A name for this client's calls, so its request ids can key replay; nothing is kept server-side, so any replica accepts it.
    x.reply.header('mcp-session-id', sessionIdFor(params.capabilities));
    return rpcResult(id, {
      protocolVersion: negotiateVersion(params.protocolVersion),
      capabilities: { tools: { listChanged: true }, logging: {}, ...(deps.offers && OFFER_CAPABILITIES) },
      serverInfo: SERVER_INFO,
      instructions: INSTRUCTIONS,
    });
  }

  /** The response to one message; none for notifications and for responses (each settles the relayed request it answers). */
  async function answer(message: unknown, x: Exchange): Promise<RpcResponse | typeof STREAMED | undefined> {
    const parsed = classify(message);
    if (parsed.kind === 'invalid') return rpcError(parsed.id, RPC_ERRORS.INVALID_REQUEST, parsed.message);
    if (parsed.kind === 'response') {
      asks.answered(x.caller, x.mcpSessionId, parsed.response);
      return undefined;
    }
    const { id, method, params } = parsed.call;
    if (id === undefined) {
      if (method === 'notifications/cancelled') inFlight.cancel(x.caller, x.mcpSessionId, params.requestId);
      return undefined;
    }
    switch (method) {
      case 'logging/setLevel':
        // Stateless: the level is not kept, and every log message an upstream sends during a call is passed on (docs/mcp.md).
        return typeof params.level === 'string' && LOG_LEVELS.has(params.level)
          ? rpcResult(id, {})
          : rpcError(id, RPC_ERRORS.INVALID_PARAMS, `params.level must be one of ${[...LOG_LEVELS].join(', ')}.`);
      case 'initialize':
        return initialize(id, params, x);
      case 'ping':
        return rpcResult(id, {});
      case 'tools/list':
        return listTools(id, params, x);
      case 'tools/call':
        return callTool(id, params, x);
      default:
        return (
          answerOffer(deps, id, method, params, x.caller, x.request.log) ??
          rpcError(id, RPC_ERRORS.METHOD_NOT_FOUND, `Method not found: ${method.slice(0, 100)}`)
        );
    }
  }

  async function post(request: FastifyRequest<{ Params: Partial<Static<typeof ToolsetPath>> }>, reply: FastifyReply) {
    const body = request.body;
    if (body instanceof Unparsable)
      return reply.code(400).send(rpcError(null, RPC_ERRORS.PARSE_ERROR, 'Parse error: the body is not JSON.'));
    const version = protocolVersionOf(request, body);
    const caller = inToolset(request.caller, request.params.toolset, deps.config.toolsets);
    const x: Exchange = { request, reply, caller, ...sessionOf(request), inBatch: Array.isArray(body) };
    if (!Array.isArray(body)) {
      const response = await answer(body, x);
      if (response === STREAMED) return reply;
      if (!response) return reply.code(202).send();
      if ('error' in response && response.error.code === RPC_ERRORS.INVALID_REQUEST) reply.code(400);
      return response;
    }
    const max = deps.config.limits.calls_per_batch;
    if (!allowsBatches(version) || body.length === 0 || body.length > max) {
      const why = allowsBatches(version)
        ? `a batch holds 1 to ${max} messages`
        : `MCP ${version} has no JSON-RPC batches; send one message per POST`;
      return reply.code(400).send(rpcError(null, RPC_ERRORS.INVALID_REQUEST, `Invalid Request: ${why}.`));
    }
    const responses: RpcResponse[] = [];
    // One at a time, in order: each call gets the whole pipeline as a request of its own would.
    for (const message of body) {
      const response = await answer(message, x);
      // A call in a batch never streams (callTool), so each answer here is JSON.
      if (response && response !== STREAMED) responses.push(response);
    }
    return responses.length === 0 ? reply.code(202).send() : responses;
  }

  return routes((app) => {
    // Encapsulated: only /mcp turns a body that is not JSON into a JSON-RPC parse error.
    const json = app.getDefaultJsonParser('error', 'error') as JsonParser;
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      json(request, body as string, (err, value) => done(null, err ? new Unparsable() : value));
    });
    app.addHook('onRequest', guardOrigin);
    // Every open stream ends before the server closes, so a shutdown never waits on one.
    app.addHook('preClose', () => streams.close());
    // Every error answer of /mcp, the app-wide hooks' (auth, load, body limits) included, is a JSON-RPC error body.
    app.setErrorHandler((err: FastifyError, request, reply) => sendError(reply, gatewayErrorOf(err, request), transportError));

    // /mcp/{toolset}: the same endpoint, its tools/list and tools/call held to one named set; an unknown set is 404.
    for (const url of ['/mcp', '/mcp/:toolset']) {
      app.post(
        url,
        {
          config: { scope: 'execute' },
          schema: {
            summary:
              url === '/mcp'
                ? 'The tools and the pipeline over MCP (Streamable HTTP)'
                : 'The tools of one toolset over MCP (Streamable HTTP)',
            description:
              'JSON-RPC 2.0, one message per POST (a batch array too when the MCP-Protocol-Version is 2025-03-26 or absent), answered with application/json, or text/event-stream while a call has upstream progress or log messages to pass on: ' +
              'initialize, ping, logging/setLevel, tools/list, tools/call; with upstream MCP servers configured also resources/list, resources/templates/list, resources/read, prompts/list, prompts/get and completion/complete. ' +
              "A client's response to a request relayed from an upstream during its call (elicitation, sampling) is taken like a notification. Notifications and responses get 202 (notifications/cancelled stops that client's call). Stateless: the Mcp-Session-Id issued on initialize keeps nothing on the server.",
            headers: Type.Object({
              'mcp-protocol-version': Type.Optional(
                Type.String({ description: `One of ${MCP_PROTOCOL_VERSIONS.join(', ')}; 2025-03-26 when absent.` }),
              ),
              'mcp-session-id': Type.Optional(
                Type.String({ description: "Names this client's calls for replay; the session unless x-session-id is set." }),
              ),
              'x-session-id': Type.Optional(
                Type.String({ description: 'The agent conversation; defaults to the Mcp-Session-Id, then the API key id.' }),
              ),
              ...UserHeader,
            }),
            ...(url !== '/mcp' && { params: ToolsetPath }),
            body: Type.Unknown({ description: 'A JSON-RPC request, notification or response.' }),
            response: {
              200: Type.Unknown({ description: 'The JSON-RPC response (an array for a batch).' }),
              202: Type.Null({ description: 'Notifications and responses accepted.' }),
              ...rpcErrorResponses(400, 401, 403, 404, 413, 415, 429, 500, 503),
            },
          },
        },
        post,
      );

      streamRoutes(app, url, streams, deps);

      // transports: the other methods as the SDK's server.
      app.route({
        method: ['PUT', 'PATCH', 'OPTIONS', 'TRACE'],
        url,
        config: { scope: 'execute' },
        schema: {
          summary: 'Not an MCP method: always 405 with Allow: GET, POST, DELETE',
          response: rpcErrorResponses(401, 403, 405, 429, 503),
        },
        handler: async (request, reply) =>
          reply
            .code(405)
            .header('allow', 'GET, POST, DELETE')
            .send(rpcError(null, RPC_ERRORS.SERVER_ERROR, `Method not allowed: /mcp takes GET, POST and DELETE, not ${request.method}.`)),
      });
    }
  });
}
