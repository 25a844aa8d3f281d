import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { PipelineDeps } from '../pipeline/types.js';
import { GatewayError } from '../protocol/errors.js';
import { rpcErrorResponses } from '../protocol/schemas.js';
import { KEEP_ALIVE_MS, STREAMS_PER_KEY, type ListChangedStreams } from './mcp-listen.js';
import { acceptsEventStream } from './mcp-stream.js';
import { protocolVersionOf, sessionOf } from './mcp-headers.js';
import type { routes } from './routes.js';
import { inToolset, ToolsetPath } from './toolsets.js';

type RouteApp = Parameters<Parameters<typeof routes>[0]>[0];

/** The Mcp-Session-Id that GET and DELETE need: the one initialize issued (any replica's; nothing is kept for it). */
function sessionFor(request: FastifyRequest): string {
  const { mcpSessionId } = sessionOf(request);
  if (mcpSessionId === undefined)
    throw new GatewayError('BAD_REQUEST', { message: `${request.method} /mcp needs the Mcp-Session-Id header that initialize issued.` });
  return mcpSessionId;
}

/**
 * GET and DELETE of `url` (/mcp or /mcp/{toolset}): the server-to-client stream of list changes for the caller (held to the toolset), and
 * the end of a session's streams on this replica, the only state a session has.
 */
export function streamRoutes(app: RouteApp, url: string, streams: ListChangedStreams, deps: Pick<PipelineDeps, 'config'>): void {
  app.get(
    url,
    {
      config: { scope: 'execute' },
      schema: {
        summary: 'The server-to-client MCP stream (SSE): list changes of the tools, resources and prompts this key sees',
        description:
          'Needs Accept: text/event-stream and the Mcp-Session-Id issued by initialize. Sends notifications/tools/list_changed, ' +
          'notifications/resources/list_changed and notifications/prompts/list_changed when what this key (and toolset) may list changes, ' +
          `and a keep-alive comment every ${KEEP_ALIVE_MS / 1000} s. At most ${STREAMS_PER_KEY} open per key on a replica (then 429).`,
        ...(url !== '/mcp' && { params: ToolsetPath }),
        response: {
          200: Type.String({ description: 'text/event-stream, open until the client, DELETE /mcp or shutdown ends it.' }),
          ...rpcErrorResponses(400, 401, 403, 404, 429, 503),
        },
      },
    },
    async (request: FastifyRequest<{ Params: Partial<Static<typeof ToolsetPath>> }>, reply: FastifyReply) => {
      protocolVersionOf(request, undefined);
      if (!acceptsEventStream(request))
        throw new GatewayError('BAD_REQUEST', { message: 'GET /mcp opens an SSE stream: send Accept: text/event-stream.' });
      const mcpSessionId = sessionFor(request);
      const caller = inToolset(request.caller, request.params.toolset, deps.config.toolsets);
      await streams.listen(caller, mcpSessionId, reply, request.log);
      return reply;
    },
  );

  app.delete(
    url,
    {
      config: { scope: 'execute' },
      schema: {
        summary: "Ends the MCP session's GET streams on this replica (nothing else is kept for a session)",
        ...(url !== '/mcp' && { params: ToolsetPath }),
        response: { 204: Type.Null({ description: 'Ended.' }), ...rpcErrorResponses(400, 401, 403, 429, 503) },
      },
    },
    async (request, reply) => {
      streams.end(request.caller, sessionFor(request));
      return reply.code(204).send(null);
    },
  );
}
