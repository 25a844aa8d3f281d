import type { FastifyRequest } from 'fastify';
import { SESSION_ID_MAX } from '../protocol/calls/index.js';
import { GatewayError } from '../protocol/errors.js';

/**
 * The session a request's calls belong to (the lock cache's and replay's scope): a non-empty `x-session-id` header, else `otherwise` (the
 * API key's id; for /mcp, the Mcp-Session-Id first). A header longer than SESSION_ID_MAX is refused.
 */
export function sessionIdOf(request: FastifyRequest, otherwise: string): string {
  const header = request.headers['x-session-id'];
  if (typeof header !== 'string' || header.length === 0) return otherwise;
  if (header.length > SESSION_ID_MAX)
    throw new GatewayError('BAD_REQUEST', { message: `x-session-id is longer than ${SESSION_ID_MAX} characters.` });
  return header;
}
