import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../protocol/errors.js';

/**
 * Bounds the memory a burst can take: past `limit` requests in flight a request is refused OVERLOADED before its body is read. A slot is
 * held from the request's arrival until its response is sent or its connection closes (a stream the client left, GET /mcp's included).
 */
export function installInflightCap(app: FastifyInstance, limit: number): void {
  let inflight = 0;
  const admitted = new WeakSet<object>();
  app.addHook('onRequest', (request, reply, done) => {
    // Liveness is "200 while the process serves" (that is all it promises), also when the cap is reached.
    if (request.routeOptions.url !== '/healthz') {
      if (inflight >= limit) throw new GatewayError('OVERLOADED', { retryAfterMs: 1_000 });
      inflight += 1;
      admitted.add(request);
      reply.raw.once('close', () => admitted.delete(request) && (inflight -= 1));
    }
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    if (admitted.delete(request)) inflight -= 1;
    done();
  });
}

/**
 * One key cannot take all of {@link installInflightCap}'s room: past `limit` of its requests in flight on this replica, a request is refused
 * RATE_LIMITED (429, Retry-After) once its key is known, before its body is read; public routes are not counted. The count is the
 * replica's own (it bounds this process's sockets and memory): N replicas let a key have N × `limit` in flight (docs/configuration.md).
 */
export function installKeyInflightCap(app: FastifyInstance, limit: number): void {
  const byKey = new Map<string, number>();
  const held = new WeakMap<object, string>();
  const release = (request: object) => {
    const key = held.get(request);
    if (key === undefined) return;
    held.delete(request);
    const left = byKey.get(key)! - 1;
    if (left === 0) byKey.delete(key);
    else byKey.set(key, left);
  };
  app.addHook('onRequest', (request, reply, done) => {
    const key = request.caller?.keyId;
    if (key !== undefined) {
      const count = byKey.get(key) ?? 0;
      if (count >= limit) {
        throw new GatewayError('RATE_LIMITED', {
          message: `This API key has ${limit} requests in flight on this replica already (limits.inflight_per_key).`,
          retryAfterMs: 1_000,
          suggestion: 'Wait for an answer before sending more, or retry after retry_after_ms.',
        });
      }
      byKey.set(key, count + 1);
      held.set(request, key);
      reply.raw.once('close', () => release(request));
    }
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    release(request);
    done();
  });
}
