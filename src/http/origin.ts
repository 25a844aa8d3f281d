import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../protocol/errors.js';

/**
 * An admin decision asked for by a browser page whose `Origin` is not the gateway's own host (the console's) is refused, even with a key:
 * the bearer key keeps other origins out, this keeps a page that somehow holds one from acting as the console. Non-browsers send no Origin.
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
