import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../config/schema.js';
import type { ClientRequest, ToolEvents } from '../tool.js';

/**
 * What the gateway's client declares to every upstream: what it can honour. Elicitation (form and URL) and sampling are relayed to the
 * `/mcp` client whose call caused them; roots are answered from the server's `roots` (none by default). No tasks: a tool that requires
 * them is left out of the listing (supervisor.ts).
 */
export const UPSTREAM_CLIENT_CAPABILITIES: ClientCapabilities = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

/** A call in flight on one upstream connection, with what its caller hears and can be asked. */
export interface CallInFlight {
  log: ToolEvents['log'] | undefined;
  ask: ToolEvents['ask'] | undefined;
  /** The call's own deadline and cancellation. */
  signal: AbortSignal;
}

/**
 * Answers the server-to-client requests of an upstream on `client`. An elicitation or sampling request is bound to the one call in flight
 * on the connection: MCP ties no such request to the call that caused it over stdio, and one caller must never be asked about another's
 * call, so with none or several calls in flight it is refused, as it is when that call's caller cannot be asked (a REST or queued call, an
 * /mcp client that did not declare the capability or takes no stream). Refusals are JSON-RPC errors answered at once.
 */
export function answerClientRequests(client: Client, server: McpServerConfig, inFlight: ReadonlySet<CallInFlight>): void {
  const roots = server.roots.map((root) => (root.name === undefined ? { uri: root.uri } : { uri: root.uri, name: root.name }));
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
  const relay = async (request: ClientRequest, signal: AbortSignal) => {
    const call = inFlight.size === 1 ? [...inFlight][0]! : undefined;
    if (!call) {
      const why =
        inFlight.size === 0
          ? 'no call of this server is in flight at the gateway'
          : 'several calls of this server are in flight at the gateway, and MCP does not say which one asks';
      throw new McpError(ErrorCode.InvalidRequest, `toolgate cannot relay ${request.method}: ${why}.`);
    }
    if (!call.ask) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `toolgate cannot relay ${request.method}: the caller of this call is not an MCP client that can be asked (a REST or queued call, or an /mcp request without an event stream).`,
      );
    }
    const answer = await call.ask(request, AbortSignal.any([signal, call.signal]));
    if ('error' in answer) throw new McpError(answer.error.code, answer.error.message, answer.error.data);
    return answer.result;
  };
  client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
    relay({ method: 'elicitation/create', params: request.params as Record<string, unknown> }, extra.signal),
  );
  client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
    relay({ method: 'sampling/createMessage', params: request.params as Record<string, unknown> }, extra.signal),
  );
}
