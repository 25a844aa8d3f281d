import { LogController, type FastifyInstance } from 'fastify';
import type { Metrics } from '../../observability/metrics.js';

/** fastify options: our one 'request completed' line (installRequestLog) replaces fastify's two per request. */
export function requestLogOptions(): { logController: LogController } {
  return { logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }) };
}

/** One log line and the HTTP metrics per answered request. */
export function installRequestLog(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    request.log.info(
      { method: request.method, route, status: reply.statusCode, duration_ms: Math.round(reply.elapsedTime), client_ip: request.ip },
      'request completed',
    );
    done();
  });
}
