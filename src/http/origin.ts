import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../protocol/errors.js';

/**
 * A browser names the page that made a request in `Origin`; the operators'
 * console is served from the gateway itself, so its requests name the host
 * they are sent to. An admin decision a page of any other origin asks for
 * is refused, even with a key: the bearer key (never a cookie) is what
 * keeps another origin out, and this keeps a page that somehow holds a key
 * from using it as the console would. Clients that are not browsers send no
 * Origin and are not concerned.
 */
export async function refuseCrossOrigin(request: FastifyRequest): Promise<void> {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let same = false;
  try {
    const from = new URL(origin);
    // The Host header read as the origin's scheme reads it, so a default port written out or not compares equal.
    same = from.host === new URL(`${from.protocol}//${request.headers.host ?? ''}`).host;
  } catch {
    same = false;
  }
  if (same) return;
  throw new GatewayError('FORBIDDEN', {
    message: "Admin decisions are taken from the gateway's own origin only (its console at /console); this request came from another.",
  });
}
