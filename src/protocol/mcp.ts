import type { ErrorCode, GatewayError } from './errors.js';
import { isRecord } from './json.js';
import { textPartsOf, type ContentBlock } from './content.js';
import { mcpBlocks } from './providers/mcp.js';
import type { VisiblePayload } from './result.js';

/** MCP over Streamable HTTP (specification revisions 2025-03-26, 2025-06-18, 2025-11-25): JSON-RPC 2.0 shapes and their guards. */

/** The revisions that define Streamable HTTP, newest first; `initialize` falls back to the first. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

/** What a request without an `MCP-Protocol-Version` header speaks (transports, "Protocol Version Header"). */
export const MCP_DEFAULT_VERSION = '2025-03-26';

/** JSON-RPC 2.0 error codes; SERVER_ERROR is the one the MCP SDK's server uses for transport-level refusals. */
export const RPC_ERRORS = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  SERVER_ERROR: -32000,
} as const;

export type RpcId = string | number;

/** A JSON-RPC request (has an id) or notification (has none), as received. */
interface RpcCall {
  id?: RpcId;
  method: string;
  params: Record<string, unknown>;
}

/** A received message: a call, a response (to a request the gateway relayed: see http/mcp-asks.ts), or something that is not JSON-RPC. */
type RpcMessage =
  | { kind: 'call'; call: RpcCall }
  | { kind: 'response'; response: { id: RpcId; result?: unknown; error?: unknown } }
  | { kind: 'invalid'; id: RpcId | null; message: string };

interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type RpcResponse =
  { jsonrpc: '2.0'; id: RpcId; result: Record<string, unknown> } | { jsonrpc: '2.0'; id: RpcId | null; error: RpcError };

/** A text content block; `_meta` is for clients and never reaches the model (basic, "General fields"). */
interface TextContent {
  type: 'text';
  text: string;
  _meta?: Record<string, unknown>;
}

/** A `tools/call` result; `structuredContent` only for a tool with an `outputSchema`: adapters hand the model it instead of the text. */
interface CallToolResult {
  [key: string]: unknown;
  content: Array<TextContent | Record<string, unknown>>;
  isError: boolean;
}

/** The `_meta` key of a text block holding the tool's `data` (e.g. Read's file stamp). */
const MCP_DATA_META = 'toolgate/data';

function isId(value: unknown): value is RpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** Classify one JSON value of a POST body. MCP params are always objects; `null` ids are refused (basic, "Requests"). */
export function classify(value: unknown): RpcMessage {
  if (!isRecord(value)) return { kind: 'invalid', id: null, message: 'A JSON-RPC message must be an object.' };
  const id = Object.hasOwn(value, 'id') ? value.id : undefined;
  const echo = isId(id) ? id : null;
  if (value.jsonrpc !== '2.0') return { kind: 'invalid', id: echo, message: 'The "jsonrpc" member must be "2.0".' };
  if (id !== undefined && !isId(id)) return { kind: 'invalid', id: null, message: 'The "id" must be a string or a number.' };
  if (!Object.hasOwn(value, 'method')) {
    if (isId(id) && (Object.hasOwn(value, 'result') || Object.hasOwn(value, 'error')))
      return { kind: 'response', response: { id, result: value.result, error: value.error } };
    return { kind: 'invalid', id: echo, message: 'A request needs a "method".' };
  }
  if (typeof value.method !== 'string') return { kind: 'invalid', id: echo, message: 'The "method" must be a string.' };
  const params = value.params ?? {};
  if (!isRecord(params)) return { kind: 'invalid', id: echo, message: 'The "params" must be an object.' };
  const call: RpcCall = { method: value.method, params };
  if (id !== undefined) call.id = id;
  return { kind: 'call', call };
}

/** `tools/call` params (schema, CallToolRequest); `problem` says what fails the schema. */
export function callToolParams(
  params: Record<string, unknown>,
): { name: string; arguments: Record<string, unknown> } | { problem: string } {
  if (typeof params.name !== 'string') return { problem: 'tools/call needs params.name, a string.' };
  const args = params.arguments ?? {};
  if (!isRecord(args)) return { problem: 'params.arguments must be an object.' };
  return { name: params.name, arguments: args };
}

/** Echo the client's revision when served, else offer the newest (lifecycle, "Version Negotiation"). */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === 'string' && MCP_PROTOCOL_VERSIONS.includes(requested) ? requested : MCP_PROTOCOL_VERSIONS[0]!;
}

/** Only 2025-03-26 has JSON-RPC batches: it made receiving them a MUST, 2025-06-18 removed them. */
export function allowsBatches(version: string): boolean {
  return version === '2025-03-26';
}

export function rpcResult(id: RpcId, result: Record<string, unknown>): RpcResponse {
  return { jsonrpc: '2.0', id, result };
}

export function rpcError(id: RpcId | null, code: number, message: string, data?: unknown): RpcResponse {
  const error: RpcError = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', id, error };
}

/** An error of the HTTP exchange as a JSON-RPC error without request id; `data.code` keeps the gateway's code. */
export function transportError(error: GatewayError): RpcResponse {
  const data: { code: ErrorCode; details?: unknown } = { code: error.code };
  if (error.details !== undefined) data.details = error.details;
  return rpcError(null, error.code === 'INTERNAL' ? RPC_ERRORS.INTERNAL_ERROR : RPC_ERRORS.SERVER_ERROR, error.message, data);
}

/** The keys the gateway adds to `data` (the guardrails' counts, blocks of unknown types): said in `text`, not the tool's structure. */
const GATEWAY_KEYS = ['redactions', 'unknown_content'];

/**
 * `data` as `structuredContent`, to follow the tool's `outputSchema` as the upstream's did: without the keys the gateway added (unless
 * the schema declares them), and with the `content` the gateway left out as a repetition of the blocks put back as they are sent.
 */
function structuredOf(data: Record<string, unknown>, outputSchema: Record<string, unknown>, content: CallToolResult['content']) {
  const declared = isRecord(outputSchema.properties) ? outputSchema.properties : {};
  const structured = { ...data };
  for (const key of GATEWAY_KEYS) if (!Object.hasOwn(declared, key)) delete structured[key];
  if (Object.hasOwn(declared, 'content') && !Object.hasOwn(structured, 'content')) structured.content = content;
  return structured;
}

/**
 * A call's payload as an MCP tool result. When `text` still holds the upstream's text parts as given (textPartsOf), every block in the
 * upstream's order, each text part its own block with its annotations; otherwise (redacted, cut, or a tool of the gateway's own) the
 * text as one block (and the truncation record when cut), then the other blocks in order; an empty text block with no data is left out.
 * `data` is `structuredContent` for a tool with an `outputSchema` (an error result when there is none), else on the first text block's
 * `_meta`. On error the whole serialized payload.
 */
export function toCallToolResult(
  payload: VisiblePayload,
  serialized: string,
  blocks: readonly ContentBlock[] = [],
  outputSchema?: Record<string, unknown>,
): CallToolResult {
  const structured = outputSchema !== undefined;
  if (payload.status === 'error') return { content: [{ type: 'text', text: serialized }, ...mcpBlocks(blocks)], isError: true };
  const parts = payload.truncated ? undefined : textPartsOf(payload.text, blocks);
  const native = mcpBlocks(blocks, parts);
  const meta = payload.data !== undefined && !structured ? { _meta: { [MCP_DATA_META]: payload.data } } : {};
  let content: CallToolResult['content'];
  if (parts) {
    const first = native.findIndex((block) => block.type === 'text');
    content = native.map((block, i) => (i === first ? { ...block, ...meta } : block));
  } else {
    const text: TextContent = { type: 'text', text: payload.text, ...meta };
    content = payload.text === '' && !('_meta' in meta) && native.length > 0 ? [] : [text];
    if (payload.truncated) content.push({ type: 'text', text: JSON.stringify({ status: payload.status, truncated: payload.truncated }) });
    content.push(...native);
  }
  if (!structured) return { content, isError: false };
  // A client holds structuredContent to the schema; a result without it (the budget cut it, or the upstream sent none) cannot pass,
  // so it is an error result, whose text and truncation record say what came and where the whole output is.
  if (!isRecord(payload.data)) return { content, isError: true };
  return { content, structuredContent: structuredOf(payload.data, outputSchema, content), isError: false };
}
