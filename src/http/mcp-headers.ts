import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { SESSION_ID_MAX } from '../protocol/calls/index.js';
import { sha256Hex } from '../protocol/canonical.js';
import { GatewayError } from '../protocol/errors.js';
import { MCP_DEFAULT_VERSION, MCP_PROTOCOL_VERSIONS, type RpcId } from '../protocol/mcp.js';
import { LOCAL_CALLER } from './auth.js';
import { sessionIdOf } from './session.js';

/** What the headers of a request to /mcp say: where it may come from, its sessions, its protocol version, and the ids its calls get. */

// transports, "Session Management": visible ASCII only.
const MCP_SESSION_ID = /^[\x21-\x7e]{1,256}$/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function isLoopbackOrigin(origin: string): boolean {
  try {
    return LOOPBACK_HOSTS.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/**
 * transports, "Security Warning": a browser page on another origin must not reach a keyless gateway through DNS rebinding. With keys
 * configured the bearer key is the guard: a rebinding page cannot attach it.
 */
export async function guardOrigin(request: FastifyRequest): Promise<void> {
  const origin = request.headers.origin;
  if (origin === undefined || request.caller !== LOCAL_CALLER || isLoopbackOrigin(origin)) return;
  throw new GatewayError('FORBIDDEN', { message: 'Without API keys configured, /mcp answers browser pages from loopback origins only.' });
}

/** Lock cache and replay scope, as for POST /execute: x-session-id, else Mcp-Session-Id, else the key id. */
export function sessionOf(request: FastifyRequest): { sessionId: string; mcpSessionId?: string } {
  const mcp = request.headers['mcp-session-id'];
  const sessionId = sessionIdOf(request, typeof mcp === 'string' ? mcp : request.caller.keyId);
  if (mcp !== undefined && (typeof mcp !== 'string' || !MCP_SESSION_ID.test(mcp))) {
    throw new GatewayError('BAD_REQUEST', { message: `Mcp-Session-Id must be 1 to ${SESSION_ID_MAX} visible ASCII characters.` });
  }
  return mcp === undefined ? { sessionId } : { sessionId, mcpSessionId: mcp };
}

/**
 * transports, "Protocol Version Header": 400 for a version we do not speak, 2025-03-26 when absent. `initialize` is exempt: its body
 * negotiates.
 */
export function protocolVersionOf(request: FastifyRequest, body: unknown): string {
  const header = request.headers['mcp-protocol-version'];
  if (header === undefined || (typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize')) {
    return MCP_DEFAULT_VERSION;
  }
  if (typeof header === 'string' && MCP_PROTOCOL_VERSIONS.includes(header)) return header;
  throw new GatewayError('BAD_REQUEST', {
    message: `Unsupported MCP-Protocol-Version ${JSON.stringify(String(header).slice(0, 40))}.`,
    details: { supported: MCP_PROTOCOL_VERSIONS },
  });
}

/**
 * Request ids are unique only within an MCP session (basic, "Requests"), so only there may one name a call for replay; elsewhere a
 * restarted client counting from 0 again would be served another call's stored result.
 */
export function callIdOf(id: RpcId, mcpSessionId: string | undefined): string {
  if (mcpSessionId === undefined) return `mcp_${randomBytes(16).toString('hex')}`;
  return `mcp_${sha256Hex(`${mcpSessionId}\n${JSON.stringify(id)}`).slice(0, 32)}`;
}
