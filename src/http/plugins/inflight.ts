import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../protocol/errors.js';

/**
 * Bounds the memory a burst can take: past `limit` requests in flight a
 * request is refused OVERLOADED before its body is read. A slot is held from
 * the request's arrival until its response is sent or it is aborted.
 */
export function installInflightCap(app: FastifyInstance, limit: number): void {
  let inflight = 0;
  const admitted = new WeakSet<object>();
  app.addHook('onRequest', (request, _reply, done) => {
    // Liveness is "200 while the process serves" (that is all it promises), also when the cap is reached.
    if (request.routeOptions.url !== '/healthz') {
      if (inflight >= limit) throw new GatewayError('OVERLOADED', { retryAfterMs: 1_000 });
      inflight += 1;
      admitted.add(request);
    }
    done();
  });
  app.addHook('onRequestAbort', async (request) => {
    if (admitted.delete(request)) inflight -= 1;
  });
  app.addHook('onResponse', (request, _reply, done) => {
    if (admitted.delete(request)) inflight -= 1;
    done();
  });
}
