import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function newRequestId(): string {
  return randomUUID();
}

/** fastify options: a client's `x-request-id` is kept when it is a plausible id, otherwise one is made. */
export const requestIdOptions = {
  requestIdHeader: false as const,
  genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
    const given = req.headers['x-request-id'];
    return typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId();
  },
};

/**
 * `x-request-id` on every response, errors included. Registered first among the request hooks, so that a request refused by a later one
 * carries it too. The request hooks take fastify's `done` rather than being async: no promise
 * per hook per request, and a hook that throws is refused the same way either way.
 */
export function installRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
}
