import type { FastifyInstance } from 'fastify';
import { unreadableBody } from '../body-encoding.js';
import { noRoute } from '../errors.js';

/**
 * Requests refused from their headers alone, before the body is read: no route (a body for a route that does not exist, which needs no key,
 * never holds an in-flight slot or the memory of its body) and a body the JSON parser would misread.
 */
export function installEarlyRefusals(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.is404) throw noRoute(request);
    const unreadable = unreadableBody(request.headers);
    if (unreadable) throw unreadable;
    done();
  });
}
