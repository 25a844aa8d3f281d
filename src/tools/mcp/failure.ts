import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { GatewayError, isGatewayError } from '../../protocol/errors.js';

/**
 * Why a call of an upstream MCP tool failed, in `details.reason`: `tool_error` — the tool answered with `isError` (see result.ts);
 * `rejected` — the server refused the request (unknown tool, invalid params); `rpc_error` — the server answered the request with another
 * JSON-RPC error; `crash` — the connection closed under the call (a stdio server exited); `transport` — the request could not be delivered
 * or answered; `down` — the server is not connected (restarting, or not up yet); `bad_content` — a block of the result does not decode
 * (tools/mcp/result.ts). The breaker counts all but `tool_error` and `rejected` (gates/breaker.ts).
 */
type McpFailureReason = 'tool_error' | 'rejected' | 'rpc_error' | 'crash' | 'transport' | 'down' | 'bad_content';

const REJECTIONS = new Set<number>([ErrorCode.InvalidParams, ErrorCode.MethodNotFound, ErrorCode.InvalidRequest]);

export function upstreamDown(server: string): GatewayError {
  return new GatewayError('UPSTREAM_ERROR', {
    message: `MCP server ${server} is not connected; the gateway is reconnecting to it.`,
    retryable: true,
    details: { server, reason: 'down' satisfies McpFailureReason },
    suggestion: 'Retry shortly, or use another tool for now.',
  });
}

/** Whether the error means the connection to the server is gone, so the supervisor must reconnect. */
export function isConnectionLoss(err: unknown): boolean {
  if (err instanceof McpError) return err.code === ErrorCode.ConnectionClosed;
  return !isGatewayError(err);
}

/** The call's error for what `callTool` threw. */
export function classifyMcpFailure(err: unknown, server: string, signal: AbortSignal): GatewayError {
  if (isGatewayError(err)) return err;
  if (signal.aborted || (err instanceof McpError && err.code === ErrorCode.RequestTimeout)) {
    return new GatewayError('TIMEOUT', {
      message: `MCP server ${server} did not answer before the call deadline; the call was cancelled there.`,
      suggestion: 'Retry, or raise the timeout_ms of the server or tool if it is slow.',
    });
  }
  const reason =
    err instanceof McpError
      ? err.code === ErrorCode.ConnectionClosed
        ? 'crash'
        : REJECTIONS.has(err.code)
          ? 'rejected'
          : 'rpc_error'
      : 'transport';
  return new GatewayError('UPSTREAM_ERROR', {
    message: messageOf(reason, server, err),
    retryable: reason !== 'rejected',
    details: err instanceof McpError ? { server, reason, rpc_code: err.code } : { server, reason },
    cause: err,
  });
}

/** How much of the server's own error message is told: a schema refusal can carry kilobytes of validation detail. */
const RPC_MESSAGE_CHARS = 300;

/** The SDK's "MCP error <code>: " prefix, once per hop the error crossed (a server's own refusal is wrapped again by the client). */
const RPC_PREFIX = /^(?:MCP error -?\d+: )+/;

/** The server's message without the SDK's prefixes, cut to RPC_MESSAGE_CHARS; `details.rpc_code` keeps the code. */
function rpcMessage(err: unknown): string {
  const message = String((err as Error).message).replace(RPC_PREFIX, '');
  return message.length > RPC_MESSAGE_CHARS ? `${message.slice(0, RPC_MESSAGE_CHARS)}…` : message;
}

function messageOf(reason: 'rejected' | 'rpc_error' | 'crash' | 'transport', server: string, err: unknown): string {
  switch (reason) {
    case 'rejected':
      return `MCP server ${server} refused the call: ${rpcMessage(err)}`;
    case 'rpc_error':
      return `MCP server ${server} failed the call: ${rpcMessage(err)}`;
    case 'crash':
      return `MCP server ${server} went away during the call; the gateway is restarting it.`;
    case 'transport':
      return `Could not reach MCP server ${server}.`;
  }
}
